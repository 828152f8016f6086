package bench

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestLeastSquares(t *testing.T) {
	t.Parallel()
	slope, icpt := leastSquares([]float64{144, 288, 576}, []float64{1000 + 2*144, 1000 + 2*288, 1000 + 2*576})
	if math.Abs(slope-2) > 1e-9 || math.Abs(icpt-1000) > 1e-9 {
		t.Errorf("line through y = 1000 + 2x: slope %v, intercept %v", slope, icpt)
	}
	if slope, icpt := leastSquares([]float64{144}, []float64{288}); slope != 2 || icpt != 0 {
		t.Errorf("one point: slope %v, intercept %v; want 2 through the origin", slope, icpt)
	}
	if slope, _ := leastSquares(nil, nil); slope != 0 {
		t.Errorf("no point: slope %v", slope)
	}
}

// point is a scale point whose plan costs base + perPool·pools (ms, and
// MiB for the memory), ratio times its schema floor, with the given
// Kubernetes requests.
func point(pods int, base, perPool, ratio float64, kube map[string]int64) ScalePoint {
	pools := 144 * pods
	cost := base + perPool*float64(pools)
	schemaFloorMs := cost / ratio
	plan := Measurement{
		MedianMs: cost, CPUMs: []float64{cost}, ProviderCPUMs: []float64{cost / 2}, ProviderPeakRSSMiB: []float64{50 + 0.1*float64(pools)},
		SchemaFloorMedianMs: schemaFloorMs, FloorMedianMs: schemaFloorMs / 2, SchemaFloorPeakRSSMiB: []float64{30 + 0.05*float64(pools)},
		Kube: []map[string]int64{kube}, Google: []map[string]int64{{"container GET nodePools": 1}},
	}
	return ScalePoint{Pods: pods, Pools: pools, Slices: 36 * pods, Nodes: 16 * pools, AddedPools: 144 * pods,
		Plan: plan, Refresh: Measurement{MedianMs: cost, CPUMs: []float64{cost}, ProviderCPUMs: []float64{cost / 2}}, Apply: Measurement{MedianMs: 1000 * float64(pods)}}
}

func TestScaleLinearMeetsTargets(t *testing.T) {
	t.Parallel()
	kube := func(pages int64) map[string]int64 { return map[string]int64{"list nodes": 1, "list-page nodes": pages} }
	sc := &Scaling{Points: []ScalePoint{point(1, 1000, 5, 1.4, kube(5)), point(2, 1000, 5, 1.3, kube(10)), point(4, 1000, 5, 1.2, kube(20))}}
	sc.PerPool = perPool(sc.Points)
	if math.Abs(sc.PerPool.PlanMs-5) > 1e-9 || math.Abs(sc.PerPool.ProviderRSSMiB-0.1) > 1e-9 || math.Abs(sc.PerPool.ProviderRSSBaseMiB-50) > 1e-9 {
		t.Errorf("per pool: %+v; want plan 5 ms, RSS 0.1 MiB over 50", sc.PerPool)
	}
	for _, tr := range scaleTargets(sc) {
		if !tr.Met {
			t.Errorf("%s: not met (%s)", tr.Name, tr.Measured)
		}
	}
}

func TestScaleTargetsMissed(t *testing.T) {
	t.Parallel()
	kube := map[string]int64{"list nodes": 1}
	grown := map[string]int64{"list nodes": 1, "get nodes": 576}
	// The plan grows with the square of the pools, and makes more
	// Kubernetes requests at four pods and GKE requests per pool; at one
	// pod it is 2.5× its schema floor.
	sc := &Scaling{Points: []ScalePoint{point(1, 0, 5, 2.5, kube), point(4, 0, 20, 1.2, grown)}}
	sc.Points[1].Plan.Google = []map[string]int64{{"container GET nodePools": 576}}
	sc.PerPool = perPool(sc.Points)
	met := map[string]bool{}
	for _, tr := range scaleTargets(sc) {
		met[tr.Name] = tr.Met
	}
	for _, name := range []string{"Requests per plan as the fleet grows", "Plan against its schema floor as the fleet grows", "Cost per plan against the resources"} {
		if v, ok := met[name]; !ok || v {
			t.Errorf("%s: met %v (present %v), want not met", name, v, ok)
		}
	}
}

func TestSameButPerPod(t *testing.T) {
	t.Parallel()
	one := map[string]int64{"compute GET reservations": 1, "compute GET reservationBlocks": 1, "compute GET reservationSubBlocks": 1,
		"compute GET resourcePolicies": 1, "container GET clusters": 1, "container GET nodePools": 1}
	four := map[string]int64{"compute GET reservations": 1, "compute GET reservationBlocks": 4, "compute GET reservationSubBlocks": 4,
		"compute GET resourcePolicies": 4, "container GET clusters": 1, "container GET nodePools": 1}
	if !sameButPerPod(four, one, 4, 1) {
		t.Error("one read of each pod's block, sub-blocks and policy at 4 pods, the reservation read once: not met")
	}
	// Measured at 2 pods before the reservation read was shared.
	readPerPod := map[string]int64{"compute GET reservations": 2, "compute GET reservationBlocks": 2, "compute GET reservationSubBlocks": 2,
		"compute GET resourcePolicies": 2, "container GET clusters": 1, "container GET nodePools": 1}
	if sameButPerPod(readPerPod, one, 2, 1) {
		t.Error("the reservation read once per pod: met")
	}
	if sameButPerPod(map[string]int64{"compute GET reservationBlocks": 5}, map[string]int64{"compute GET reservationBlocks": 1}, 4, 1) {
		t.Error("5 block reads at 4 pods: met")
	}
	if sameButPerPod(map[string]int64{"container GET nodePools": 1, "container GET clusters": 1}, map[string]int64{"container GET clusters": 1}, 4, 1) {
		t.Error("a request the first plan did not make: met")
	}
	if sameButPerPod(map[string]int64{}, map[string]int64{"container GET clusters": 1}, 4, 1) {
		t.Error("a request the first plan made missing: met")
	}
}

func TestScaleInTableAndMarkdown(t *testing.T) {
	t.Parallel()
	r := &Report{Settings: Settings{Runs: 1}}
	var md, table bytes.Buffer
	r.writeScaleTable(&table)
	r.writeScale(func(format string, args ...any) { _, _ = fmt.Fprintf(&md, format, args...) })
	if table.Len() != 0 || md.Len() != 0 {
		t.Fatalf("a run without the scale step wrote a scale section: %q %q", table.String(), md.String())
	}
	r.Scale = &Scaling{NodeLeaseSeconds: 720, Points: []ScalePoint{point(1, 1000, 5, 1.2, nil), point(4, 1000, 5, 1.2, nil)}}
	r.Scale.PerPool = perPool(r.Scale.Points)
	r.Scale.Heap = &ProviderHeap{Pools: 576, Nodes: 9216, BeforeMiB: 100, AfterMiB: 400, WallMs: 5000,
		Sites: []HeapSite{{Function: "k8s.io/client-go/tools/cache.(*threadSafeMap).Add", MiB: 250}}, CPU: &CPUSplit{SampledMs: 3000, FrameworkMs: 1000}}
	r.writeScaleTable(&table)
	r.writeScale(func(format string, args ...any) { _, _ = fmt.Fprintf(&md, format, args...) })
	for _, want := range []string{"| 4 | 576 | 144 | 9216 |", "was 100 MiB before a plan and 400 MiB after it", "(*threadSafeMap).Add` (250.0 MiB)",
		"The same in-process plan took 5.00 s; the CPU of the provider's side was 3000 ms", "Leases here last 720 s", "180 s as the largest fleet has pods"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("page lacks %q:\n%s", want, md.String())
		}
	}
	if !strings.Contains(table.String(), "Per added pool: plan 5.00 ms") {
		t.Errorf("table lacks the cost per pool:\n%s", table.String())
	}
}

func TestRequestGrowth(t *testing.T) {
	t.Parallel()
	google := func(pods int64, reservations int64) []map[string]int64 {
		return []map[string]int64{{"compute GET reservations": reservations, "compute GET reservationBlocks": pods,
			"compute GET reservationSubBlocks": pods, "compute GET resourcePolicies": pods, "container GET nodePools": 1}}
	}
	a, b := point(1, 1000, 5, 1.2, nil), point(2, 1000, 5, 1.2, nil)
	a.Plan.Google, b.Plan.Google = google(1, 1), google(2, 1)
	got := requestGrowth(a, b)
	for _, want := range []string{"5 at 144 pools, 8 at 288 pools: 3 more for 1 more pods", "none per pool"} {
		if !strings.Contains(got, want) {
			t.Errorf("the reservation read once: %q lacks %q", got, want)
		}
	}
	b.Plan.Google = google(2, 2)
	if got := requestGrowth(a, b); strings.Contains(got, "none per pool") || !strings.Contains(got, "compute GET reservations 1") {
		t.Errorf("the reservation read per pod: %q", got)
	}
	b.Plan.Google = google(1, 1)
	if got := requestGrowth(a, b); !strings.HasSuffix(got, ": the same.") {
		t.Errorf("no growth: %q", got)
	}
}
