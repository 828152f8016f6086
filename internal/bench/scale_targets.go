package bench

import (
	"fmt"
	"maps"
	"strings"
)

// growthTolerance is how much a cost per resource may grow from the
// smallest fleet to the largest before it counts as growing faster than
// the resources (the figures are medians of few runs on a shared machine).
const growthTolerance = 1.1

// scaleTargets are the targets of the scale step: requests per plan the
// same at every size, the plan within floorTargetRatio of its schema
// floor at every size, memory per pool stated, and no cost per plan that
// grows faster than the resources.
func scaleTargets(sc *Scaling) []TargetResult {
	if sc == nil || len(sc.Points) == 0 {
		return nil
	}
	return []TargetResult{scaleRequestsTarget(sc), scaleFloorTarget(sc), scaleMemoryTarget(sc), scaleGrowthTarget(sc)}
}

// fixedRequests is a plan's requests but the node list's continuation
// pages (which follow the nodes), the largest of its runs: Kubernetes,
// then GKE and Compute.
func fixedRequests(c Measurement) (kube, google map[string]int64) {
	kube, google = map[string]int64{}, map[string]int64{}
	for _, run := range c.Kube {
		for k, v := range run {
			if !strings.HasPrefix(k, "list-page ") {
				kube[k] = max(kube[k], v)
			}
		}
	}
	for _, run := range c.Google {
		for k, v := range run {
			google[k] = max(google[k], v)
		}
	}
	return kube, google
}

func total(counts map[string]int64) int64 {
	var n int64
	for _, v := range counts {
		n += v
	}
	return n
}

// perPodRequests are the GKE and Compute requests a plan makes once per
// pod: each pod's module reads its own reservation block in a data source
// (the block, and its sub-blocks, which the Compute API lists one block
// at a time) and refreshes its own workload policy. Every other request
// is made as often at every fleet size: the pods' blocks share one read of
// their reservation, and the pools one list of the cluster's node pools.
var perPodRequests = map[string]bool{
	"compute GET reservationBlocks":    true,
	"compute GET reservationSubBlocks": true,
	"compute GET resourcePolicies":     true,
}

// scaleRequestsTarget: a plan's Kubernetes requests the same at every
// fleet size; its GKE and Compute requests the same too, but the reads of
// each pod's own objects (perPodRequests), never more with the pools.
func scaleRequestsTarget(sc *Scaling) TargetResult {
	first := sc.Points[0]
	k0, g0 := fixedRequests(first.Plan)
	met := true
	var parts []string
	for _, p := range sc.Points {
		k, g := fixedRequests(p.Plan)
		met = met && maps.Equal(k, k0) && sameButPerPod(g, g0, p.Pods, first.Pods)
		parts = append(parts, fmt.Sprintf("%d pods, %d pools: %d Kubernetes (+%d node list pages), %d GKE+Compute (%s)",
			p.Pods, p.Pools, total(k), maxOver(p.Plan.Kube, "list-page nodes"), total(g), requestList(g)))
	}
	return TargetResult{
		Name: "Requests per plan as the fleet grows",
		Target: "Kubernetes: the same at every fleet size (but the node list's continuation pages, which follow the nodes); " +
			"GKE and Compute: the same at every fleet size (one read of the reservation for all its blocks), " +
			"but one read per pod of that pod's own block, sub-blocks and workload policy; none per pool",
		Measured: strings.Join(parts, "; "),
		Met:      met,
		How:      OutOfProcess,
	}
}

// sameButPerPod says whether g (the plan of pods pods) makes every request
// of perPodRequests at most pods/pods0 times as often as g0 (the plan of
// pods0 pods), and every other request exactly as often.
func sameButPerPod(g, g0 map[string]int64, pods, pods0 int) bool {
	for k, v := range g {
		if perPodRequests[k] && v*int64(pods0) > g0[k]*int64(pods) {
			return false
		}
		if !perPodRequests[k] && v != g0[k] {
			return false
		}
	}
	for k := range g0 {
		if _, ok := g[k]; !ok && !perPodRequests[k] {
			return false
		}
	}
	return true
}

func scaleFloorTarget(sc *Scaling) TargetResult {
	met := true
	var parts []string
	for _, p := range sc.Points {
		ratio := schemaFloorRatio(p.Plan)
		met = met && ratio > 0 && ratio <= floorTargetRatio
		parts = append(parts, fmt.Sprintf("%d pools: %.2f s against %.2f s, %.2f×%s", p.Pools, p.Plan.MedianMs/1000, p.Plan.SchemaFloorMedianMs/1000, ratio, schemaFloorCPUText(p.Plan)))
	}
	return TargetResult{
		Name:     "Plan against its schema floor as the fleet grows",
		Target:   fmt.Sprintf("within %.1f× the schema floor of the same size at every fleet size", floorTargetRatio),
		Measured: strings.Join(parts, "; "),
		Met:      met,
		How:      OutOfProcess,
	}
}

// schemaFloorCPUText is a plan's CPU time against its schema floor's
// (medians), and where the difference is: Terraform's own process (its
// CPU less the provider's) and the provider's; empty when either was not
// measured.
func schemaFloorCPUText(m Measurement) string {
	if len(m.CPUMs) == 0 || len(m.SchemaFloorCPUMs) == 0 || len(m.ProviderCPUMs) == 0 || len(m.SchemaFloorProviderCPUMs) == 0 {
		return ""
	}
	cpu, floor := percentile(m.CPUMs, 50), percentile(m.SchemaFloorCPUMs, 50)
	provider, floorProvider := percentile(m.ProviderCPUMs, 50), percentile(m.SchemaFloorProviderCPUMs, 50)
	return fmt.Sprintf(" (CPU of Terraform and the provider %.2f s against %.2f s, %.2f×: Terraform's own %+.2f s, the provider's %+.2f s)",
		cpu/1000, floor/1000, cpu/floor, ((cpu-provider)-(floor-floorProvider))/1000, (provider-floorProvider)/1000)
}

func scaleMemoryTarget(sc *Scaling) TargetResult {
	var parts []string
	for _, p := range sc.Points {
		parts = append(parts, fmt.Sprintf("%d pools: %.0f MiB", p.Pools, percentile(p.Plan.ProviderPeakRSSMiB, 50)))
	}
	pp := sc.PerPool
	return TargetResult{
		Name:   "Provider memory per pool",
		Target: "stated: the provider's peak resident set per plan, and what each added pool adds",
		Measured: fmt.Sprintf("%s; %.3f MiB per pool over %.0f MiB (the schema floor's provider: %.3f MiB per pool)",
			strings.Join(parts, "; "), pp.ProviderRSSMiB, pp.ProviderRSSBaseMiB, pp.SchemaFloorRSSMiB),
		Met: len(sc.Points) > 1 && pp.ProviderRSSBaseMiB > 0,
		How: OutOfProcess,
	}
}

// growth is how many times more a cost per resource is at the largest
// fleet than at the smallest (1: it grows as the resources do).
func growth(sc *Scaling, cost func(ScalePoint) float64) float64 {
	a, b := sc.Points[0], sc.Points[len(sc.Points)-1]
	ca, cb := cost(a), cost(b)
	if ca <= 0 || a.Pools == 0 {
		return 0
	}
	return (cb / float64(b.Pools+b.Slices)) / (ca / float64(a.Pools+a.Slices))
}

func scaleGrowthTarget(sc *Scaling) TargetResult {
	costs := []struct {
		name string
		of   func(ScalePoint) float64
	}{
		{"plan wall time", func(p ScalePoint) float64 { return p.Plan.MedianMs }},
		{"Terraform and provider CPU", func(p ScalePoint) float64 { return percentile(p.Plan.CPUMs, 50) }},
		{"provider CPU", func(p ScalePoint) float64 { return percentile(p.Plan.ProviderCPUMs, 50) }},
		{"provider peak RSS", func(p ScalePoint) float64 { return percentile(p.Plan.ProviderPeakRSSMiB, 50) }},
		{"refresh wall time", func(p ScalePoint) float64 { return p.Refresh.MedianMs }},
		{"refresh CPU (Terraform and provider)", func(p ScalePoint) float64 { return percentile(p.Refresh.CPUMs, 50) }},
		{"refresh provider CPU", func(p ScalePoint) float64 { return percentile(p.Refresh.ProviderCPUMs, 50) }},
	}
	met := len(sc.Points) > 1
	var parts []string
	for _, c := range costs {
		g := growth(sc, c.of)
		met = met && g > 0 && g <= growthTolerance
		parts = append(parts, fmt.Sprintf("%s %.2f×", c.name, g))
	}
	a, b := sc.Points[0], sc.Points[len(sc.Points)-1]
	return TargetResult{
		Name: "Cost per plan against the resources",
		Target: fmt.Sprintf("no cost per resource at the largest fleet more than %.1f× that at the smallest (growing no faster than the resources)",
			growthTolerance),
		Measured: fmt.Sprintf("per resource, %d pools against %d: %s", b.Pools, a.Pools, strings.Join(parts, ", ")),
		Met:      met,
		How:      OutOfProcess,
	}
}
