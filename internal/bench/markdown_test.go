package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteMarkdown(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

func TestFloorInTableAndMarkdown(t *testing.T) {
	t.Parallel()
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
