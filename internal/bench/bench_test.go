package bench

import (
	"bytes"
	"reflect"
	"strings"
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
	t.Parallel()
	got := diff(map[string]int64{"get nodes": 5, "watch nodes": 2, "list slices": 1}, map[string]int64{"get nodes": 3, "watch nodes": 2})
	want := map[string]int64{"get nodes": 2, "list slices": 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("diff = %v, want %v", got, want)
	}
}

func TestParseGoBench(t *testing.T) {
	t.Parallel()
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

func TestWriteTable(t *testing.T) {
	t.Parallel()
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
