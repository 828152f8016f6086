package tpuslice

import (
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
)

func TestProgress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		state              string
		retry              bool
		canFinish, waiting bool
	}{
		{"", false, true, true},
		{clusterread.SliceNotCreated, false, true, true},
		{clusterread.SliceActivating, false, true, true},
		{clusterread.SliceCreationFailed, false, false, false},
		{clusterread.SliceCreationFailed, true, true, true},
		{clusterread.SliceActive, false, false, false},
		{clusterread.SliceFailed, true, false, false},
	} {
		if got := Progress(tc.state, tc.retry); got.CanFinish != tc.canFinish || got.Waiting != tc.waiting {
			t.Errorf("Progress(%q, retry %v) = %+v, want CanFinish %v and Waiting %v", tc.state, tc.retry, got, tc.canFinish, tc.waiting)
		}
	}
	if d := Progress("", false).Describe(); d != "state not yet reported" {
		t.Errorf("Describe of an unreported state = %q", d)
	}
}
