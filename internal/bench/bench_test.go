package bench

import (
	"math"
	"reflect"
	"testing"
)

func TestPercentile(t *testing.T) {
	t.Parallel()
	xs := []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	for _, tc := range []struct{ p, want float64 }{{50, 10}, {95, 19}, {100, 20}, {1, 1}} {
		if got := percentile(xs, tc.p); got != tc.want {
			t.Errorf("p%v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := percentile(nil, 50); got != 0 || xs[0] != 5 {
		t.Errorf("p50 of none = %v, or percentile sorted its input in place", got)
	}
}

func TestDiffAndSummarize(t *testing.T) {
	t.Parallel()
	got := diff(map[string]int64{"get nodes": 5, "watch nodes": 2, "list slices": 1}, map[string]int64{"get nodes": 3, "watch nodes": 2})
	if want := map[string]int64{"get nodes": 2, "list slices": 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("diff = %v, want %v", got, want)
	}
	if s := summarize([]map[string]int64{{"a": 1, "b": 1}, {"a": 2}}); s != "2" {
		t.Errorf("runs of 2 requests each summarized as %q", s)
	}
	if s := summarize([]map[string]int64{{"a": 1}, {"a": 3}}); s != "1-3" {
		t.Errorf("runs of 1 and 3 requests summarized as %q", s)
	}
}

func TestParseGoBench(t *testing.T) {
	t.Parallel()
	out := []byte(`goos: linux
BenchmarkParseTPU7x/4x4x4-2         	 1000000	      1042 ns/op	     120 B/op	       3 allocs/op
BenchmarkGroupPartitionsFullPod-2   	     609	   1933102 ns/op
PASS
`)
	want := []GoBenchmark{{Name: "BenchmarkParseTPU7x/4x4x4", NsPerOp: 1042, BytesPerOp: 120, AllocsPerOp: 3}, {Name: "BenchmarkGroupPartitionsFullPod", NsPerOp: 1933102}}
	if got := parseGoBench(out); !reflect.DeepEqual(got, want) {
		t.Errorf("parseGoBench = %+v, want %+v", got, want)
	}
	for ns, want := range map[float64]string{799: "799 ns", 1080: "1.08 µs", 2888000: "2.888 ms"} {
		if got := NsString(ns); got != want {
			t.Errorf("NsString(%v) = %q, want %q", ns, got, want)
		}
	}
}

func TestStackOf(t *testing.T) {
	t.Parallel()
	for scale, want := range map[float64]podStack{1: {144, 36, "16x24x24"}, 0.25: {36, 9, "12x12x16"}, 0.01: {4, 1, "4x8x8"}} {
		if got := stackOf(scale); got != want {
			t.Errorf("stackOf(%v) = %+v, want %+v", scale, got, want)
		}
	}
}

func TestLeastSquares(t *testing.T) {
	t.Parallel()
	slope, icpt := leastSquares([]float64{144, 288, 576}, []float64{1000 + 2*144, 1000 + 2*288, 1000 + 2*576})
	if math.Abs(slope-2) > 1e-9 || math.Abs(icpt-1000) > 1e-9 {
		t.Errorf("line through y = 1000 + 2x: slope %v, intercept %v", slope, icpt)
	}
	if slope, icpt := leastSquares([]float64{144}, []float64{288}); slope != 2 || icpt != 0 {
		t.Errorf("one point: slope %v, intercept %v; want 2 through the origin", slope, icpt)
	}
}

// The steps a run selects: -steps, less the Go benchmarks when skipped and
// the scale step without fleet sizes.
func TestOptionsRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opts Options
		want []string
	}{
		{Options{}, []string{StepGoBench, StepStartup, StepPoolApply, StepKueue, StepPlans, StepActive}},
		{Options{SkipGoBenchmarks: true, Pods: []int{1}}, []string{StepStartup, StepPoolApply, StepKueue, StepPlans, StepActive, StepScale}},
		{Options{Steps: []string{StepScale}, Pods: []int{1, 2}}, []string{StepScale}},
		{Options{Steps: []string{StepKueue, StepGoBench}, SkipGoBenchmarks: true}, []string{StepKueue}},
	} {
		var got []string
		for _, s := range Steps {
			if tc.opts.runs(s) {
				got = append(got, s)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v runs %v, want %v", tc.opts, got, tc.want)
		}
	}
}

// A run of some steps replaces those steps' figures and where they were
// measured, and keeps the others'.
func TestMerge(t *testing.T) {
	t.Parallel()
	r := &Report{Runs: map[string]Measured{StepPlans: {Date: "old"}, StepScale: {Date: "old"}},
		Commands: []Measurement{{Name: "plan 16 pools"}}, Scale: &Scaling{NodeLeaseSeconds: 180}}
	r.Merge(&Report{Runs: map[string]Measured{StepScale: {Date: "new", Note: "load 4"}}, Scale: &Scaling{NodeLeaseSeconds: 720}})
	if r.Scale.NodeLeaseSeconds != 720 || r.Runs[StepScale].Note != "load 4" || r.Runs[StepPlans].Date != "old" || len(r.Commands) != 1 {
		t.Errorf("merged: %+v", r)
	}
	empty := &Report{}
	empty.Merge(&Report{Runs: map[string]Measured{StepKueue: {Date: "new"}}, Kueue: &Kueue{Runs: 3}})
	if empty.Kueue == nil || empty.Runs[StepKueue].Date != "new" {
		t.Errorf("merged into nothing: %+v", empty)
	}
}
