package bench

import (
	"bytes"
	"context"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestTargets(t *testing.T) {
	t.Parallel()
	r := &Report{
		Commands: []Measurement{
			{Name: "plan 16 pools", Kube: []map[string]int64{{"watchlist nodes": 1}, {"watchlist nodes": 1}}},
			{Name: "refresh 16 pools", Kube: []map[string]int64{{"watchlist nodes": 1}}},
			{Name: "plan 144 pools", Kube: []map[string]int64{{"list nodes": 1, "list-page nodes": 4}}},
		},
		Active:  ActiveLatency{Slices: 36, MedianMs: 20, P95Ms: 40},
		GoBench: []GoBenchmark{{Name: "BenchmarkSelectA", NsPerOp: 1e6}, {Name: "BenchmarkSelectB", NsPerOp: 2e6}, {Name: "BenchmarkParse", NsPerOp: 9e9}},
		PoolApply: PoolApply{Pools: 16, OperationMs: 30000, OverheadMs: 1500, OverheadPct: 5,
			GoogleRequests: map[string]int64{"container POST nodePools": 16, "container GET operations": 40, "compute GET reservations": 1}},
	}
	got := targets(r)
	if len(got) != 6 {
		t.Fatalf("%d targets: %+v", len(got), got)
	}
	for _, tr := range got {
		if !tr.Met {
			t.Errorf("target %q not met: %s", tr.Name, tr.Measured)
		}
	}
	if !strings.Contains(got[0].Measured, "144 pools: 1 list (+4 continuation pages)") {
		t.Errorf("node lists measured as %q", got[0].Measured)
	}
	if got[1].Name != "Kubernetes requests per plan" || got[1].Measured != "16 pools: 1; 144 pools: 5" {
		t.Errorf("requests per plan: %+v", got[1])
	}
	if !strings.Contains(got[3].Measured, "2.000 ms (BenchmarkSelectB)") {
		t.Errorf("selection measured as %q", got[2].Measured)
	}

	// Each target can fail.
	r.Commands[2].Kube = []map[string]int64{{"list nodes": 2}}
	r.Active.MedianMs = 150
	r.GoBench[1].NsPerOp = 6e6
	r.PoolApply.OverheadPct = 12
	r.PoolApply.GoogleRequests["container GET operations"] = 80 // 97 requests: 6.06 per pool
	for _, tr := range targets(r) {
		if tr.Met {
			t.Errorf("target %q met with %s", tr.Name, tr.Measured)
		}
	}
	r.Active = ActiveLatency{Slices: 5, MedianMs: 10}
	if targets(r)[2].Met {
		t.Error("an ACTIVE latency from 5 slices met the target (at least 20 are needed)")
	}
}

func TestFloorTarget(t *testing.T) {
	t.Parallel()
	plan := Measurement{Name: "plan 144 pools + 36 slices 4x8x8", Pools: 144, Slices: 36, MedianMs: 3000,
		FloorResources: 182, FloorWallMs: []float64{2100, 2000, 2200}, FloorMedianMs: 2100}
	r := &Report{Commands: []Measurement{
		{Name: "plan 16 pools", Pools: 16, MedianMs: 1000, FloorResources: 18, FloorMedianMs: 900},
		{Name: "refresh 144 pools + 36 slices 4x8x8", Pools: 144, Slices: 36, MedianMs: 9000},
		plan,
	}}
	tr, ok := floorTarget(r)
	if !ok {
		t.Fatal("no floor target for a run that planned 144 pools and 36 slices")
	}
	// 3000 / 2100 = 1.43: within 1.5×.
	if !tr.Met || tr.How != OutOfProcess || tr.Measured != "3.00 s against a floor of 2.10 s (182 resources): 1.43×" {
		t.Errorf("floor target = %+v", tr)
	}
	r.Commands[2].MedianMs = 3200 // 1.52×
	if tr, _ := floorTarget(r); tr.Met {
		t.Errorf("a plan at 1.52× its floor met the target: %s", tr.Measured)
	}
	r.Commands[2].FloorMedianMs = 0
	if tr, _ := floorTarget(r); tr.Met || tr.Measured != "no floor measured" {
		t.Errorf("a plan without a floor: %+v", tr)
	}
	if _, ok := floorTarget(&Report{Commands: r.Commands[:2]}); ok {
		t.Error("a floor target for a run that did not plan 144 pools and 36 slices")
	}
	if got := len(targets(r)); got != 6 {
		// node lists, requests per plan, the floor, ACTIVE, the pool
		// apply's overhead and requests (no Go benchmarks)
		t.Errorf("%d targets, want 6", got)
	}
}

func TestKubeRequestsTarget(t *testing.T) {
	t.Parallel()
	plan := func(name string, runs ...map[string]int64) Measurement { return Measurement{Name: name, Kube: runs} }
	r := &Report{Commands: []Measurement{
		plan("plan 16 pools", map[string]int64{"watchlist nodes": 1, "watchlist slices": 1}),
		plan("refresh 16 pools", map[string]int64{"watchlist nodes": 50}),
		plan("plan 144 pools", map[string]int64{"watchlist nodes": 1, "watchlist slices": 1, "list-page nodes": 4}),
	}}
	tr, ok := kubeRequestsTarget(r)
	if !ok || !tr.Met || tr.Measured != "16 pools: 2; 144 pools: 6" {
		t.Errorf("constant requests: %+v", tr)
	}
	r.Commands[2].Kube = append(r.Commands[2].Kube, map[string]int64{"watchlist nodes": 1, "watchlist slices": 1, "get slices": 36})
	if tr, _ := kubeRequestsTarget(r); tr.Met {
		t.Errorf("requests that grow with the slices met the target: %s", tr.Measured)
	}
	r.Commands = []Measurement{plan("plan 16 pools", map[string]int64{"get nodes": 101})}
	if tr, _ := kubeRequestsTarget(r); tr.Met {
		t.Errorf("more requests than the burst met the target: %s", tr.Measured)
	}
	if _, ok := kubeRequestsTarget(&Report{}); ok {
		t.Error("a target without plans")
	}
}

func TestClientThrottling(t *testing.T) {
	t.Parallel()
	w := &rateLimiterWaits{}
	for _, d := range []time.Duration{time.Microsecond, 2 * time.Millisecond, 40 * time.Millisecond} {
		w.Observe(context.Background(), "GET", url.URL{}, d)
	}
	got := w.take()
	if got != (ClientThrottling{Requests: 3, Throttled: 1, LongestWaitMs: 40}) {
		t.Errorf("take = %+v", got)
	}
	if again := w.take(); again != (ClientThrottling{}) {
		t.Errorf("take did not start afresh: %+v", again)
	}

	r := &Report{Commands: []Measurement{{Name: "plan 16 pools", Kube: []map[string]int64{{"watchlist nodes": 1}}}}}
	r.Profile.Throttling = &ClientThrottling{Requests: 2}
	r.Active.Throttling = &ClientThrottling{Requests: 300}
	tr, _ := kubeRequestsTarget(r)
	want := "16 pools: 1; in-process plan: 2 requests through client-go's rate limiter, 0 waited 10ms or more (longest 0.0 ms); in-process apply of the slices: 300 requests"
	if !tr.Met || !strings.HasPrefix(tr.Measured, want) {
		t.Errorf("target = %+v", tr)
	}
	var md bytes.Buffer
	r.Profile.Name = "plan 16 pools"
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "during this plan, 2 requests through client-go's rate limiter, 0 waited 10ms or more (longest 0.0 ms); during the in-process apply of its slices, 300 requests") {
		t.Errorf("Markdown lacks the throttling:\n%s", md.String())
	}
	r.Active.Throttling.Throttled = 1
	if tr, _ := kubeRequestsTarget(r); tr.Met {
		t.Errorf("a throttled request met the target: %s", tr.Measured)
	}
}
