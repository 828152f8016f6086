package bench

import "testing"

// scalePoint is a point of pods pods whose plan takes msPerResource per
// pool and slice, with the given requests.
func scalePoint(pods int, msPerResource float64, kube, google int64) ScalePoint {
	p := ScalePoint{Pods: pods, Pools: 144 * pods, Slices: 36 * pods}
	p.Plan = Measurement{MedianMs: msPerResource * float64(p.Pools+p.Slices),
		Kube: []map[string]int64{{"watchlist nodes": kube}}, Google: []map[string]int64{{"container GET nodePools": google}}}
	return p
}

func TestTargets(t *testing.T) {
	t.Parallel()
	met := func(r *Report) map[string]bool {
		out := map[string]bool{}
		for _, tg := range r.Targets() {
			if tg.How == "" || tg.Measured == "" {
				t.Errorf("target %+v does not say what or how it measured", tg)
			}
			out[tg.Name] = tg.Met
		}
		return out
	}
	good := &Report{
		Commands: []Measurement{
			{Name: "plan 16 pools", MedianMs: 500, FloorMedianMs: 400, Kube: []map[string]int64{{"watchlist nodes": 2}}},
			{Name: "refresh 16 pools", Kube: []map[string]int64{{"watchlist nodes": 9}}},
			{Name: "plan 144 pools", MedianMs: 1400, FloorMedianMs: 1000, Kube: []map[string]int64{{"watchlist nodes": 2}}},
		},
		Active:    &Active{MedianMs: 7},
		GoBench:   []GoBenchmark{{Name: "BenchmarkSelectSubSliceColdFullPod", NsPerOp: 3e6}},
		PoolApply: &PoolApply{Pools: 16, OverheadPct: 3, GoogleRequests: map[string]int64{"container POST nodePools": 16, "container GET operations": 40}},
		Scale:     &Scaling{Points: []ScalePoint{scalePoint(1, 10, 2, 6), scalePoint(4, 10.5, 2, 15)}},
	}
	got := met(good)
	if len(got) != 8 {
		t.Errorf("%d targets, want 8: %v", len(got), got)
	}
	for name, ok := range got {
		if !ok {
			t.Errorf("target %q missed", name)
		}
	}
	bad := &Report{
		Commands: []Measurement{
			{Name: "plan 16 pools", MedianMs: 500, FloorMedianMs: 400, Kube: []map[string]int64{{"watchlist nodes": 2}}},
			{Name: "plan 144 pools", MedianMs: 1600, FloorMedianMs: 1000, Kube: []map[string]int64{{"watchlist nodes": 3}}},
		},
		Active:    &Active{MedianMs: 150},
		GoBench:   []GoBenchmark{{Name: "BenchmarkSelectSubSliceColdFullPod", NsPerOp: 6e6}},
		PoolApply: &PoolApply{Pools: 16, OverheadPct: 12, GoogleRequests: map[string]int64{"container GET operations": 97}},
		Scale:     &Scaling{Points: []ScalePoint{scalePoint(1, 10, 2, 6), scalePoint(4, 12, 3, 16)}},
	}
	for name, ok := range met(bad) {
		if ok {
			t.Errorf("target %q met", name)
		}
	}
	if n := len((&Report{}).Targets()); n != 0 {
		t.Errorf("a report with no figures has %d targets", n)
	}
}
