package bench

import (
	"sort"
	"strings"
)

// writeActive writes the time from ACTIVE to the end of create.
func (r *Report) writeActive(w printf) {
	a := r.Active
	w("\n### Time from ACTIVE to the end of create\n\nIn process.\n\n| Slices | Median | p95 | Max |\n|---|---|---|---|\n| %d × `%s` | %.1f ms | %.1f ms | %.1f ms |\n",
		a.Slices, a.Topology, a.MedianMs, a.P95Ms, a.MaxMs)
	w(`
The slice simulator records when it starts the status update that marks a Slice ACTIVE; the provider, served
in-process for this measurement (the same clock), records when its gRPC ` + "`ApplyResourceChange`" + ` for that slice
returns. The create waits with a watch (list, then watch), so it learns of ACTIVE from the event, with no polling.
`)
}

// writePoolApply writes the apply of the node pools and its overhead.
func (r *Report) writePoolApply(w printf) {
	pa := r.PoolApply
	w("\n### Apply of %d node pools\n\nOut of process.\n\n| Pools | Emulated operation | Longest operation | Wall time | Overhead | Before the first operation | After the last |\n|---|---|---|---|---|---|---|\n", pa.Pools)
	w("| %d (`-parallelism=%d`) | %s | %.2f s | %.2f s | %.2f s (%.1f%%) | %.2f s | %.2f s |\n",
		pa.Pools, pa.Parallelism, seconds(pa.DelayMs), pa.OperationMs/1000, pa.WallMs/1000, pa.OverheadMs/1000, pa.OverheadPct, pa.BeforeMs/1000, pa.AfterMs/1000)
	if pa.DelayMs > 0 {
		over := pa.WallMs - pa.DelayMs
		w(`
Each GKE operation takes the emulated %s, then the sandbox registers the pool's 16 nodes and ends it, as GKE
registers a pool's nodes within its create operation. The ideal is the longest operation as the sandbox ran it; the
overhead is everything else: Terraform's plan and apply walks, the provider's start, its checks of the target
sub-block, and what it waits after an operation ends. Against the emulated %s alone the apply took %.2f s (%.1f%%)
longer, of which %.2f s is the sandbox registering the %d nodes on the same two cores before it ends the
operations. The provider polls an operation slowly (15 s doubling to 60 s) until every node of its pool is Ready, then
from 250 ms, so the apply ends %.2f s after the last operation. The %.2f s before the first
operation is Terraform's plan walk (provider start, the data source, the policy's refresh, %d plans) and the start
of its apply walk.
`, seconds(pa.DelayMs), seconds(pa.DelayMs), over/1000, 100*over/pa.DelayMs, (pa.OperationMs-pa.DelayMs)/1000, pa.Pools*16, pa.AfterMs/1000, pa.BeforeMs/1000, pa.Pools)
	}
	if len(pa.GoogleRequests) == 0 {
		return // a report from before the apply's requests were recorded
	}
	var total int64
	keys := make([]string, 0, len(pa.GoogleRequests))
	for k, n := range pa.GoogleRequests {
		keys = append(keys, k)
		total += n
	}
	sort.Strings(keys)
	w("\nThe apply's GKE and Compute requests, its plan walk included: %d, %.1f per pool.\n\n| Request | Count | Per pool |\n|---|---|---|\n",
		total, pa.RequestsPerPool())
	for _, k := range keys {
		n := pa.GoogleRequests[k]
		w("| `%s` | %d | %.2f |\n", k, n, float64(n)/float64(pa.Pools))
	}
	w(`
The engine reads a reservation, its block and its sub-blocks once for all the pools that target them (a cache of a few
seconds, which its own creates and deletes invalidate), and polls an operation when the pool's nodes have registered
rather than on a short fixed interval.
`)
}

// writeKueue writes slices on demand per JobSet on the Kueue path.
func (r *Report) writeKueue(w printf) {
	k := r.Kueue
	if k.Runs == 0 {
		return // a report from before the Kueue path was measured
	}
	w("\n### Slices on demand per JobSet (Kueue)\n\nIn the sandbox, no Terraform: Kueue, JobSet, the scheduler and the slice admission check.")
	r.writeKueueRun(w)
	w("\n\n")
	w("| Workload | Runs | Submitted → admitted (Slices ACTIVE) | Submitted → %d pods bound | Completed → Slices deleted |\n|---|---|---|---|---|\n", k.Pods)
	w("| %s | %d | %.2f s | %.2f s (slowest %.2f s) | %.2f s |\n", k.Workload, k.Runs, k.SubmitToAdmittedMs/1000, k.SubmitToBoundMs/1000, k.SubmitToBoundMaxMs/1000, k.CompleteToGoneMs/1000)
	r.writeKueueFlex(w)
	w(`
On the node pools of the pool apply, set up by the engine as `+"`gke_kueue_slicing`"+` does, one JobSet at a time is
queued: the real Kueue reserves its quota and its topology-aware scheduling picks the partitions, the emulated slice
admission check makes one Slice per Job and marks the check Ready once they are ACTIVE (the sandbox forms a slice in
%s; GKE's own formation time is not emulated), Kueue starts the Jobs and the real scheduler binds their pods; the pods
run %s (kwok), and when the JobSet has completed the check deletes its Slices. A node pool per JobSet, as the TPU
Provisioner makes, costs a node pool creation instead: minutes on GKE. The [slices on demand guide](slices-on-demand.md)
compares the two.
`, seconds(k.SliceActivationDelayMs), kueueBenchPodRun)
}

// writeStartup writes the provider's start-up, schema and size.
func (r *Report) writeStartup(w printf) {
	m := r.Machine
	s := r.Startup
	w("\n### Start-up, schema and size\n\nOut of process.\n\n| Figure | Value |\n|---|---|\n")
	w("| Start-up (%d starts) | median %.1f ms, p95 %.1f ms |\n", s.Runs, s.StartMedianMs, s.StartP95Ms)
	w("| `GetProviderSchema` | median %.1f ms, p95 %.1f ms, %d bytes |\n", s.SchemaMedianMs, s.SchemaP95Ms, s.SchemaBytes)
	w("| Binary (%s, release flags) | %.1f MiB (%d bytes) |\n", m.OS, float64(s.BinaryBytes)/(1<<20), s.BinaryBytes)
	w(`
Start-up is from ` + "`exec`" + ` of the binary to a connected gRPC client, as Terraform starts a provider (go-plugin,
automatic mTLS); then one ` + "`GetProviderSchema`" + ` call.
`)
}

// writeGoBench writes the Go benchmarks, when the run has them.
func (r *Report) writeGoBench(w printf) {
	set := r.Settings
	if len(r.GoBench) > 0 {
		w("\n### Go benchmarks\n\n`go test -run '^$' -bench . -benchmem %s`:\n\n| Benchmark | Time/op | B/op | allocs/op |\n|---|---|---|---|\n", strings.Join(set.GoBenchPackages, " "))
		for _, g := range r.GoBench {
			w("| `%s` | %s | %.0f | %.0f |\n", g.Name, nsString(g.NsPerOp), g.BytesPerOp, g.AllocsPerOp)
		}
		w(`
The selection benchmarks are the apply path of a ` + "`partition_selector`" + ` over a full pod: group the 2304 nodes into
partitions, mark those that existing Slices hold and choose among the rest, then claim them (` + "`SelectAndClaim`" + `), or
the choice alone among already grouped partitions (` + "`Select`" + `). ` + "`BenchmarkPoolNodesFullPod`" + ` is the node lookups of a
refresh of 144 pools; ` + "`BenchmarkGroupPartitionsFullPod`" + ` groups 2304 nodes into 144 partitions.
`)
		if hasBenchmark(r.GoBench, "BenchmarkSlice") {
			w(`
` + "`BenchmarkSliceValidateResourceConfig`" + ` and ` + "`BenchmarkSlicePlanResourceChange`" + ` are those gRPC calls for one existing
slice of the stack, served in process with no cluster behind them, with a selector of 1 and of 144 node pools. Nearly
all of their time is terraform-plugin-framework's conversion of the request, which walks every value of the
configuration, plan and state and looks up each value's schema path (copying the schema's attribute map at each
step), then sets each attribute of the plan after its plan modifiers: so it follows the length of the selector's
` + "`node_pools`" + ` list. The provider's own plan-path code is under a tenth of it. That is why the stack's slices select by
their workload policy (` + "`partition_selector.workload_policy`" + `) rather than list its pools.
`)
		}
	}
}

// writeTargets writes the targets and whether they were met.
func (r *Report) writeTargets(w printf) {
	w("\n## Targets\n\n| Target | Goal | Measured | How | Met |\n|---|---|---|---|---|\n")
	for _, t := range r.Targets {
		how := howLabel[t.How]
		if how == "" {
			how = t.How
		}
		w("| %s | %s | %s | %s | %s |\n", t.Name, t.Target, t.Measured, how, strings.ToLower(yesNo(t.Met)))
	}
}

// writeReading writes how to read the figures.
func writeReading(w printf) {
	w(`
## Reading the figures

- The sandbox runs on the same cores as Terraform and the provider, so the times are CPU-bound and include the
  kube-apiserver's and etcd's work; there is no network latency. On GKE each request costs a round trip more, which
  is why the request counts matter more than these times.
- The sandbox's API server runs without the watch cache (see [the sandbox's limits](sandbox.md)); the watch-list
  streams nodes from etcd.
- Times move between runs by some 10–20%% on a 2-core machine; [benchmarks.json](benchmarks.json) keeps every run.
`)
}
