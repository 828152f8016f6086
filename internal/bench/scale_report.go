package bench

import (
	"bytes"
	"fmt"
	"strings"
	"text/tabwriter"
)

// scaleRow is one fleet size's figures as the table and the page show them.
type scaleRow struct {
	p                                   ScalePoint
	plan, schemaFloor, floor, refresh   float64 // s
	ratio, floorRatio                   float64
	planCPU, providerCPU, rss, floorRSS float64 // s, s, MiB, MiB
	kube, google                        int64
	pages                               int64
}

func rowOf(p ScalePoint) scaleRow {
	k, g := fixedRequests(p.Plan)
	return scaleRow{
		p: p, plan: p.Plan.MedianMs / 1000, schemaFloor: p.Plan.SchemaFloorMedianMs / 1000, floor: p.Plan.FloorMedianMs / 1000,
		refresh: p.Refresh.MedianMs / 1000, ratio: schemaFloorRatio(p.Plan), floorRatio: floorRatio(p.Plan),
		planCPU: percentile(p.Plan.CPUMs, 50) / 1000, providerCPU: percentile(p.Plan.ProviderCPUMs, 50) / 1000,
		rss: percentile(p.Plan.ProviderPeakRSSMiB, 50), floorRSS: percentile(p.Plan.SchemaFloorPeakRSSMiB, 50),
		kube: total(k), google: total(g), pages: maxOver(p.Plan.Kube, "list-page nodes"),
	}
}

// writeScaleTable prints the scale step, when the run has one.
func (r *Report) writeScaleTable(w *bytes.Buffer) {
	sc := r.Scale
	if sc == nil {
		return
	}
	_, _ = fmt.Fprintf(w, "As the fleet grows (a sandbox of its own, node Leases of %d s; medians of %d runs)\n", sc.NodeLeaseSeconds, r.scaleRuns())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "pods\tpools\tslices\tnodes\tapply (created)\tplan\tschema floor\tfloor\trefresh\tplan CPU\tprovider CPU\tprovider RSS\tschema floor RSS\tKubernetes\tGKE+Compute")
	for _, p := range sc.Points {
		x := rowOf(p)
		_, _ = fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%.1f s (%d pools)\t%.2f s\t%.2f s (%.2f×)\t%.2f s (%.2f×)\t%.2f s\t%.2f s\t%.2f s\t%.0f MiB\t%.0f MiB\t%d (+%d pages)\t%d\n",
			p.Pods, p.Pools, p.Slices, p.Nodes, p.Apply.MedianMs/1000, p.AddedPools, x.plan, x.schemaFloor, x.ratio, x.floor, x.floorRatio,
			x.refresh, x.planCPU, x.providerCPU, x.rss, x.floorRSS, x.kube, x.pages, x.google)
	}
	_ = tw.Flush()
	pp := sc.PerPool
	if h := sc.Heap; h != nil {
		_, _ = fmt.Fprintf(w, "In-process provider's heap at %d pools: %.0f MiB in use before a plan, %.0f MiB after; grown most in %s\n", h.Pools, h.BeforeMiB, h.AfterMiB, heapSiteList(h.Sites))
		if c := h.CPU; c != nil {
			_, _ = fmt.Fprintf(w, "In-process plan at %d pools: %.2f s; provider CPU %.0f ms: in RPCs, framework %.0f ms and handlers+engine %.0f ms; client-go %.0f ms; GC %.0f ms; other %.0f ms\n",
				h.Pools, h.WallMs/1000, c.SampledMs, c.FrameworkMs, c.ProviderMs, c.KubeClientMs, c.GCMs, c.OtherMs)
		}
	}
	_, _ = fmt.Fprintf(w, "Per added pool: plan %.2f ms (schema floor %.2f ms, floor %.2f ms), refresh %.2f ms, plan CPU %.2f ms, provider CPU %.2f ms, provider RSS %.3f MiB over %.0f MiB; apply %.0f ms per created pool\n\n",
		pp.PlanMs, pp.SchemaFloorMs, pp.FloorMs, pp.RefreshMs, pp.PlanCPUMs, pp.ProviderCPUMs, pp.ProviderRSSMiB, pp.ProviderRSSBaseMiB, pp.ApplyMs)
}

// writeScale writes the scale step's section, when the run has one.
func (r *Report) writeScale(w printf) {
	sc := r.Scale
	if sc == nil {
		return
	}
	w("\n## As the fleet grows\n\nOut of process. Medians of %d runs.", r.scaleRuns())
	if run := sc.Run; run != nil {
		w(" Measured on %s by `%s`, in a run of its own on %s", dateOf(run.Date), run.Command, r.machineOf(run.Machine))
		if run.Note != "" {
			w(" (%s)", run.Note)
		}
		w("; the fair figures are the ratios to the floors, measured in the same run.")
	}
	w("\n\n")
	w("| Pods | Pools | Slices | Nodes | Apply (pools created) | Plan | Schema floor | Floor | Refresh | Plan CPU | Provider CPU | Provider peak RSS | Schema floor's RSS | Kubernetes requests | GKE+Compute requests |\n")
	w("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range sc.Points {
		x := rowOf(p)
		w("| %d | %d | %d | %d | %.1f s (%d) | %.2f s | %.2f s (%.2f×) | %.2f s (%.2f×) | %.2f s | %.2f s | %.2f s | %.0f MiB | %.0f MiB | %d (+%d node list pages) | %d |\n",
			p.Pods, p.Pools, p.Slices, p.Nodes, p.Apply.MedianMs/1000, p.AddedPools, x.plan, x.schemaFloor, x.ratio, x.floor, x.floorRatio,
			x.refresh, x.planCPU, x.providerCPU, x.rss, x.floorRSS, x.kube, x.pages, x.google)
	}
	pp := sc.PerPool
	w("\nWhat each added pool (with a quarter of a `4x8x8` slice) costs, the slope of a least-squares line over the sizes:\n\n")
	w("| Plan | Schema floor | Floor | Refresh | Plan CPU | Provider CPU | Provider RSS | Schema floor's RSS | Apply, per pool created |\n|---|---|---|---|---|---|---|---|---|\n")
	w("| %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.2f ms | %.3f MiB (over %.0f MiB) | %.3f MiB | %.0f ms |\n",
		pp.PlanMs, pp.SchemaFloorMs, pp.FloorMs, pp.RefreshMs, pp.PlanCPUMs, pp.ProviderCPUMs, pp.ProviderRSSMiB, pp.ProviderRSSBaseMiB, pp.SchemaFloorRSSMiB, pp.ApplyMs)
	last := sc.Points[len(sc.Points)-1]
	if len(sc.Points) > 1 {
		w("\n%s\n", requestGrowth(sc.Points[0], last))
	}
	w("\n%s", wallAgainstCPU(sc.Points))
	if parts := backgroundByPart(sc.Points); parts != "" {
		w("\n%s", parts)
	}
	if h := sc.Heap; h != nil {
		w("\nWhere the provider's memory goes at %d pools (%d nodes), in process: the heap in use after a garbage collection was %.0f MiB before a plan and %.0f MiB after it, "+
			"the growth (the provider's caches, and what the sandbox in the same process grew meanwhile, its own allocations left out) most in %s.\n",
			h.Pools, h.Nodes, h.BeforeMiB, h.AfterMiB, heapSiteList(h.Sites))
		if c := h.CPU; c != nil {
			w("\nThe same in-process plan took %.2f s; the CPU of the provider's side was %.0f ms: in its RPCs, terraform-plugin-framework's work around the handlers %.0f ms and the handlers and engine %.0f ms; client-go (informers and watches) %.0f ms; the garbage collector %.0f ms; other %.0f ms.\n",
				h.WallMs/1000, c.SampledMs, c.FrameworkMs, c.ProviderMs, c.KubeClientMs, c.GCMs, c.OtherMs)
		}
	}
	w(`
Each pod is a reservation block of 144 sub-blocks with the slice-stack module over it (its own workload policy, %d
node pools and %d slices of `+"`4x8x8`"+`), in a sandbox of its own whose inventory holds the largest fleet. The stack grows
from one size to the next by an apply, which creates the added pods' pools and slices (the apply column). Plan CPU is
Terraform's and the provider's, provider CPU and peak RSS the provider process's alone (sampled from /proc every
20 ms), the schema floor's RSS that of the schema floor's provider over the same resources and values.

Holding %d nodes on two cores: kwok renews each node's Lease every quarter of its duration, and at a kubelet's rate
the Lease writes alone would take the machine. The nodes' Leases here last %d s, as many times the other steps'
%d s as the largest fleet has pods, so the Lease writes of the whole fleet are those of one pod; what it changes is
only how soon a node whose heartbeat stopped would turn Unknown (kube-controller-manager's grace period grows in
proportion), and no heartbeat stops here.%s
`, last.Pools/max(1, last.Pods), last.Slices/max(1, last.Pods), last.Nodes, sc.NodeLeaseSeconds, sc.NodeLeaseSeconds/max(1, last.Pods), heartbeatText(sc.HeartbeatScale))
	if sc.NodeReadySeconds > 0 {
		w(`
The emulated GKE ends a pool's create with an error when kwok has not reported its 16 nodes Ready (and
kube-controller-manager has not untainted them) within a bound; here that bound is %d s, as many times the other
steps' as the largest fleet has pods, because with thousands of nodes on two cores kwok and the controller manager lag
further behind. It changes no figure of a plan or a refresh, only how long a slow pool create is waited for.
`, sc.NodeReadySeconds)
	}
}

// requestGrowth says how a plan's GKE and Compute requests grew from the
// smallest fleet to the largest, and which ones.
func requestGrowth(first, last ScalePoint) string {
	_, g0 := fixedRequests(first.Plan)
	_, g := fixedRequests(last.Plan)
	grown := map[string]int64{}
	for k, v := range g {
		if v > g0[k] {
			grown[k] = v - g0[k]
		}
	}
	head := fmt.Sprintf("A plan's GKE and Compute requests: %d at %d pools, %d at %d pools", total(g0), first.Pools, total(g), last.Pools)
	if len(grown) == 0 {
		return head + ": the same."
	}
	head = fmt.Sprintf("%s: %d more for %d more pods (%s)", head, total(g)-total(g0), last.Pods-first.Pods, requestList(grown))
	if !sameButPerPod(g, g0, last.Pods, first.Pods) {
		return head + ", more than the reads of each pod's own objects (see the targets)."
	}
	return head + ", the reads of each pod's own objects and none per pool: " +
		"each pod's module reads its own reservation block in a data source (the block, and its sub-blocks, which the Compute API " +
		"lists one block at a time) and refreshes its own workload policy; the pods' blocks share one read of their reservation, " +
		"and all the pools one list of the cluster's node pools."
}

// heapSiteList is the sites as "function (n MiB)", comma-separated.
func heapSiteList(sites []HeapSite) string {
	parts := make([]string, 0, len(sites))
	for _, s := range sites {
		parts = append(parts, fmt.Sprintf("`%s` (%.1f MiB)", s.Function, s.MiB))
	}
	return strings.Join(parts, ", ")
}

// heartbeatText says how often kwok rewrote the nodes' status and
// kube-controller-manager looked at them in a scale run of HeartbeatScale
// n (0: a run from before both were stretched).
func heartbeatText(n int) string {
	if n <= 1 {
		return " The nodes' status is still rewritten about every 10 minutes (600 to 610 s)."
	}
	return fmt.Sprintf(" The rest of the idle nodes' work is stretched as much: kwok rewrites each node's status about every %d minutes "+
		"(%d to %d s; 600 to 610 s in the other steps) and kube-controller-manager looks at every node every %d s (2 s); at 9,216 nodes, "+
		"unstretched, these cost about 0.5 and 0.18 cores with nothing running.", 10*n, 600*n, 610*n, 2*n)
}
