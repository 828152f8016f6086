package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	for _, tc := range []struct{ p, want float64 }{{50, 10}, {95, 19}, {100, 20}, {1, 1}} {
		if got := percentile(xs, tc.p); got != tc.want {
			t.Errorf("p%v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if got := percentile([]float64{7}, 95); got != 7 {
		t.Errorf("p95 of one sample = %v", got)
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("p50 of none = %v", got)
	}
	if xs[0] != 5 {
		t.Error("percentile sorted its input in place")
	}
}

func TestDiff(t *testing.T) {
	got := diff(map[string]int64{"get nodes": 5, "watch nodes": 2, "list slices": 1}, map[string]int64{"get nodes": 3, "watch nodes": 2})
	want := map[string]int64{"get nodes": 2, "list slices": 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diff = %v, want %v", got, want)
	}
}

func TestParseGoBench(t *testing.T) {
	out := []byte(`goos: linux
BenchmarkParseTPU7x/4x4x4-2         	 1000000	      1042 ns/op	     120 B/op	       3 allocs/op
BenchmarkGroupPartitionsFullPod-2   	     609	   1933102 ns/op
BenchmarkNoMem	 100	 5.5 ns/op
PASS
ok  	github.com/dynslice/terraform-provider-gke/internal/engine	2.1s
`)
	got := parseGoBench(out)
	want := []GoBenchmark{
		{Name: "BenchmarkParseTPU7x/4x4x4", NsPerOp: 1042, BytesPerOp: 120, AllocsPerOp: 3},
		{Name: "BenchmarkGroupPartitionsFullPod", NsPerOp: 1933102},
		{Name: "BenchmarkNoMem", NsPerOp: 5.5},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseGoBench = %+v, want %+v", got, want)
	}
}

func TestPoolApply(t *testing.T) {
	began := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return began.Add(time.Duration(s * float64(time.Second))) }
	ops := []sandbox.OperationRecord{
		{Name: "earlier", Type: "CREATE_NODE_POOL", Started: at(-100), Ended: at(-70), Done: true},
		{Name: "policy", Type: "insert", Started: at(0.5), Ended: at(1), Done: true},
	}
	for i := range smallPools {
		start := 2 + float64(i)*0.01
		ops = append(ops, sandbox.OperationRecord{Name: "op", Type: "CREATE_NODE_POOL", Started: at(start), Ended: at(start + 30 + float64(i)*0.05), Done: true})
	}
	p, err := poolApply(ops, began, at(34), 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// The longest operation is the last: 30 + 15*0.05 = 30.75 s; it ended
	// at 2.15 + 30.75 = 32.9 s.
	if p.OperationMs != 30750 || p.WallMs != 34000 || p.OverheadMs != 3250 || p.BeforeMs != 2000 || p.AfterMs != 1100 {
		t.Errorf("poolApply = %+v", p)
	}
	if p.OverheadPct < 10.56 || p.OverheadPct > 10.57 {
		t.Errorf("overhead %.3f%%, want 3.25/30.75", p.OverheadPct)
	}

	ops[len(ops)-1].Done = false
	if _, err := poolApply(ops, began, at(34), 30*time.Second); err == nil {
		t.Error("an unfinished operation was accepted")
	}
	if _, err := poolApply(ops[:5], began, at(34), 30*time.Second); err == nil || !strings.Contains(err.Error(), "started 3 node pool operations") {
		t.Errorf("too few operations: %v", err)
	}
}

func TestTargets(t *testing.T) {
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

func TestWriteTable(t *testing.T) {
	r := &Report{
		Date:     "2026-11-22T05:00:00Z",
		Command:  "make bench",
		Settings: Settings{Runs: 2, StartupRuns: 10, OperationTimeMs: 30000},
		Machine:  Machine{CPU: "cpu", Cores: 2, MemoryGiB: 24, OS: "linux/amd64", Go: "go1.26", Terraform: "Terraform v1.11.4"},
		Commands: []Measurement{{Name: "plan 16 pools", WallMs: []float64{800, 900, 850}, MedianMs: 850,
			Kube:   []map[string]int64{{"watchlist nodes": 1}, {"watchlist nodes": 1}, {"watchlist nodes": 1, "get slices": 2}},
			Google: []map[string]int64{{"container GET nodePools": 16}, {"container GET nodePools": 16}, {"container GET nodePools": 16}}}},
		Profile: PlanProfile{Name: "plan 16 pools", WallMs: 900, RPCs: map[string]RPCTime{"ReadResource gke_subblock_node_pool": {Calls: 16, TotalMs: 40, MaxMs: 5}}},
	}
	r.Targets = targets(r)
	var out bytes.Buffer
	if err := r.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"plan 16 pools  3     0.85 s  1-3", "kube get slices", "0-2", "container GET nodePools", "16", "ReadResource gke_subblock_node_pool", "Kubernetes node LISTs per plan"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

func TestWriteMarkdown(t *testing.T) {
	r := &Report{
		Date:     "2026-11-22T05:00:00Z",
		Command:  "make bench",
		Settings: Settings{Runs: 2, StartupRuns: 10, OperationTimeMs: 30000},
		Machine:  Machine{CPU: "cpu", Cores: 2, MemoryGiB: 24, OS: "linux/amd64", Go: "go1.26", Terraform: "Terraform v1.11.4"},
		Commands: []Measurement{
			{Name: "plan 16 pools", WallMs: []float64{800, 900}, MedianMs: 900,
				Kube:   []map[string]int64{{"watchlist nodes": 1}, {"watchlist nodes": 1, "get slices": 2}},
				Google: []map[string]int64{{"container GET nodePools": 1}, {"container GET nodePools": 1}}},
			{Name: "plan 144 pools", WallMs: []float64{4000}, MedianMs: 4000,
				Kube:   []map[string]int64{{"watchlist nodes": 1}},
				Google: []map[string]int64{{"container GET nodePools": 1}}},
		},
		Active: ActiveLatency{Slices: 36, Topology: "4x8x8", MedianMs: 20.3, P95Ms: 32.8, MaxMs: 92.9},
		PoolApply: PoolApply{Pools: 16, Parallelism: 16, DelayMs: 30000, OperationMs: 32550, WallMs: 34160, OverheadMs: 1610, OverheadPct: 4.9,
			GoogleRequests: map[string]int64{"container POST nodePools": 16, "container GET operations": 36, "compute GET reservations": 2}},
		GoBench: []GoBenchmark{{Name: "BenchmarkSelectX", NsPerOp: 1.5e6, BytesPerOp: 10, AllocsPerOp: 2}},
	}
	r.Targets = targets(r)
	var out bytes.Buffer
	if err := r.WriteMarkdown(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"on 2026-11-22, by `make bench` (2 runs of each plan and refresh, 30 s emulated operations, 10 provider starts).",
		"The requests of one plan, a range where runs differ:",
		"| plan 16 pools | 0.90 s | 0.80, 0.90 | 1-3 | 1 |",
		"| Requests of one plan | 16 pools | 144 pools |\n|---|---|---|\n",
		"| Kubernetes `get slices` | 0-2 | 0 |",
		"| Kubernetes `watchlist nodes` | 1 | 1 |",
		"| `container GET nodePools` | 1 | 1 |",
		"| 36 × `4x8x8` | 20.3 ms | 32.8 ms | 92.9 ms |",
		"| 16 (`-parallelism=16`) | 30 s | 32.55 s | 34.16 s | 1.61 s (4.9%) |",
		"| `BenchmarkSelectX` | 1.500 ms | 10 | 2 |",
		"| Partition selection (2304 nodes) | under 5 ms | slowest 1.500 ms (BenchmarkSelectX) | go test -bench | yes |",
		"| ACTIVE seen after the simulator's status update | median within 100 ms | median 20.3 ms, p95 32.8 ms over 36 slices | in process | yes |",
		"Against the emulated 30 s alone the apply took 4.16 s (13.9%)",
		"its plan walk included: 54, 3.4 per pool.",
		"| `container GET operations` | 36 | 2.25 |",
		"| GKE and Compute requests, 16-pool apply | at most 6 per pool, its create included | 54 requests, 3.4 per pool (compute GET reservations 2, container GET operations 36, container POST nodePools 16) | out of process | yes |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, out.String())
		}
	}
}

// TestBenchmarkPageIsGenerated: the benchmarks guide is what gke-bench
// -markdown writes from the committed figures of its run, byte for byte,
// so no figure on the page was edited by hand.
func TestBenchmarkPageIsGenerated(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "benchmarks.json"))
	if err != nil {
		t.Fatalf("the figures of the page's run: %v (make bench writes them)", err)
	}
	var r Report
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("templates/guides/benchmarks.json: %v", err)
	}
	page, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "benchmarks.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(page) {
		gl, pl := strings.Split(got, "\n"), strings.Split(string(page), "\n")
		for i := range max(len(gl), len(pl)) {
			var g, p string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(pl) {
				p = pl[i]
			}
			if g != p {
				t.Fatalf("templates/guides/benchmarks.md.tmpl is not what gke-bench -markdown writes from benchmarks.json (make bench-page regenerates it); first difference at line %d:\n page:      %q\n generated: %q", i+1, p, g)
			}
		}
	}
	for _, tg := range r.Targets {
		if howLabel[tg.How] == "" {
			t.Errorf("target %q does not say how it was measured (how=%q)", tg.Name, tg.How)
		}
	}
}

func TestFloorTarget(t *testing.T) {
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

func TestFloorInTableAndMarkdown(t *testing.T) {
	r := &Report{
		Date:     "2026-11-24T05:00:00Z",
		Command:  "gke-bench",
		Settings: Settings{Runs: 2, StartupRuns: 1, OperationTimeMs: 5000},
		Commands: []Measurement{
			{Name: "plan 144 pools + 36 slices 4x8x8", Pools: 144, Slices: 36, WallMs: []float64{3000, 3100}, MedianMs: 3100,
				FloorResources: 182, FloorWallMs: []float64{2000, 2500}, FloorMedianMs: 2500},
			{Name: "refresh 144 pools + 36 slices 4x8x8", Pools: 144, Slices: 36, WallMs: []float64{4000}, MedianMs: 4000},
		},
	}
	r.Targets = targets(r)
	var table bytes.Buffer
	if err := r.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"floor (no-op resources)", "2.50 s (182), 1.24×", "Plan of 144 pools + 36 slices against its floor"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	var md bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| Command | Median | Runs (s) | Kubernetes requests | GKE + Compute requests | Floor | × floor |\n|---|---|---|---|---|---|---|\n",
		"| plan 144 pools + 36 slices 4x8x8 | 3.10 s | 3.00, 3.10 | 0 | 0 | 2.50 s | 1.24× |\n",
		"| refresh 144 pools + 36 slices 4x8x8 | 4.00 s | 4.00 | 0 | 0 | | |\n",
		"The floor of a plan is the same `terraform plan`",
		"| Plan of 144 pools + 36 slices against its floor | within 1.5× the floor (a plan of as many no-op resources) | 3.10 s against a floor of 2.50 s (182 resources): 1.24× | out of process | yes |",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if strings.Contains(md.String(), "BenchmarkSlicePlanResourceChange") {
		t.Error("the page explains slice benchmarks that the run does not have")
	}
	r.GoBench = []GoBenchmark{{Name: "BenchmarkSlicePlanResourceChange/pools=144", NsPerOp: 5e6}}
	md.Reset()
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| `BenchmarkSlicePlanResourceChange/pools=144` | 5.000 ms |") || !strings.Contains(md.String(), "terraform-plugin-framework's conversion") {
		t.Errorf("Markdown lacks the slice benchmarks:\n%s", md.String())
	}
	// A run without floors keeps the table it had.
	r.Commands[0].FloorMedianMs = 0
	md.Reset()
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "× floor") || strings.Contains(md.String(), "The floor of a plan") {
		t.Errorf("a run without floors shows them:\n%s", md.String())
	}
}

func TestKubeRequestsTarget(t *testing.T) {
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
