package bench

import (
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

func TestStackOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		scale         float64
		pools, slices int
		oneSlice      string
	}{
		{1, 144, 36, "16x24x24"},
		{0.25, 36, 9, "12x12x16"},
		{0.5, 72, 18, "12x16x24"},
		{0.01, 4, 1, "4x8x8"},
	} {
		got := stackOf(tc.scale)
		if got.pools != tc.pools || got.slices != tc.slices || got.oneSlice != tc.oneSlice {
			t.Errorf("stackOf(%v) = %+v, want %d pools, %d slices, one slice %s", tc.scale, got, tc.pools, tc.slices, tc.oneSlice)
		}
		top, err := topology.ParseTPU7x(got.oneSlice)
		if err != nil {
			t.Errorf("stackOf(%v): one slice %s: %v", tc.scale, got.oneSlice, err)
		} else if top.Chips() != 64*got.pools {
			t.Errorf("stackOf(%v): one slice %s has %d chips, want %d (every partition)", tc.scale, got.oneSlice, top.Chips(), 64*got.pools)
		}
	}
}

func TestRunsPodSteps(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		steps []string
		want  bool
	}{
		{nil, true},
		{[]string{StepScale}, false},
		{[]string{StepPlans, StepScale}, true},
	} {
		if got := (Options{Steps: tc.steps}).runsPodSteps(); got != tc.want {
			t.Errorf("steps %v: runs the pod sandbox's steps %v, want %v", tc.steps, got, tc.want)
		}
	}
	if got := (Options{Scale: 3}).withDefaults().Scale; got != 1 {
		t.Errorf("scale 3 defaults to %v, want 1", got)
	}
}
