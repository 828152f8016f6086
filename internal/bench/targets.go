package bench

import (
	"fmt"
	"slices"
	"strings"
)

// Target compares a figure with its goal.
type Target struct {
	Name, Goal, Measured string
	Met                  bool
	// How is how the figure was measured: out of process, in process or
	// go test -bench.
	How string
}

// How a figure was measured.
const (
	// OutOfProcess: the real terraform CLI starts the release build of the
	// provider as its own process, as users run it.
	OutOfProcess = "out of process"
	// InProcess: the real terraform CLI attached (TF_REATTACH_PROVIDERS)
	// to the provider served inside the benchmark process.
	InProcess = "in process"
	// GoBench: go test -bench of the pure logic, no I/O.
	GoBench = "go test -bench"
)

// Targets are the report's figures against their goals, for the steps it
// has.
func (r *Report) Targets() []Target {
	var out []Target
	if plans := r.plans(); len(plans) > 0 {
		var kube []string
		same := true
		for _, c := range plans {
			kube = append(kube, summarize(c.Kube))
			same = same && summarize(c.Kube) == summarize(plans[0].Kube)
		}
		out = append(out, Target{"Kubernetes requests per plan", "the same at every size of the stack (one list and watch of the nodes and of the Slices per provider process)",
			strings.Join(kube, ", "), same, OutOfProcess})
		last := plans[len(plans)-1]
		out = append(out, Target{"Plan of the full stack against its floor", "within 1.5× the floor (a plan of as many resources of a provider that does no work)",
			fmt.Sprintf("%.2f× (%.2f s against %.2f s)", ratio(last.MedianMs, last.FloorMedianMs), last.MedianMs/1000, last.FloorMedianMs/1000),
			ratio(last.MedianMs, last.FloorMedianMs) <= 1.5, OutOfProcess})
	}
	if a := r.Active; a != nil {
		out = append(out, Target{"ACTIVE seen after the simulator's status update", "median within 100 ms",
			fmt.Sprintf("median %.1f ms, p95 %.1f ms over %d slices", a.MedianMs, a.P95Ms, a.Slices), a.MedianMs <= 100, InProcess})
	}
	if i := slices.IndexFunc(r.GoBench, func(b GoBenchmark) bool { return b.Name == "BenchmarkSelectSubSliceColdFullPod" }); i >= 0 {
		ns := r.GoBench[i].NsPerOp
		out = append(out, Target{"Partition selection (2304 nodes, cold)", "under 5 ms", NsString(ns), ns < 5e6, GoBench})
	}
	if p := r.PoolApply; p != nil {
		out = append(out, Target{"Provider overhead, 16-pool apply", "under 10% of the operation time", fmt.Sprintf("%.1f%%", p.OverheadPct), p.OverheadPct < 10, OutOfProcess})
		perPool := float64(total(p.GoogleRequests)) / float64(p.Pools)
		out = append(out, Target{"GKE and Compute requests, 16-pool apply", "at most 6 per pool, its create included", fmt.Sprintf("%.1f per pool", perPool), perPool <= 6, OutOfProcess})
	}
	if sc := r.Scale; sc != nil && len(sc.Points) > 1 {
		out = append(out, r.scaleTargets(sc)...)
	}
	return out
}

// scaleTargets are the scale step's: requests that do not grow with the
// pools, and a cost per resource that does not grow with the fleet.
func (r *Report) scaleTargets(sc *Scaling) []Target {
	first, last := sc.Points[0], sc.Points[len(sc.Points)-1]
	var kube, google []string
	sameKube := true
	for _, p := range sc.Points {
		kube, google = append(kube, summarize(p.Plan.Kube)), append(google, summarize(p.Plan.Google))
		sameKube = sameKube && summarize(p.Plan.Kube) == summarize(first.Plan.Kube)
	}
	grew := median(last.Plan.Google) - median(first.Plan.Google)
	perRes := func(c Measurement, p ScalePoint) float64 { return c.MedianMs / float64(p.Pools+p.Slices) }
	cost := ratio(perRes(last.Plan, last), perRes(first.Plan, first))
	return []Target{
		{"Requests per plan as the fleet grows", "Kubernetes: the same at every size; GKE and Compute: none per pool, at most 3 per added pod (its block, sub-blocks and workload policy)",
			fmt.Sprintf("Kubernetes %s; GKE and Compute %s", strings.Join(kube, ", "), strings.Join(google, ", ")),
			sameKube && grew <= 3*int64(last.Pods-first.Pods), OutOfProcess},
		{"Plan time per resource as the fleet grows", "at the largest fleet at most 1.1× that at the smallest",
			fmt.Sprintf("%.2f× (%d against %d pools)", cost, last.Pools, first.Pools), cost <= 1.1, OutOfProcess},
	}
}

// plans are the report's plans (not its refreshes).
func (r *Report) plans() []Measurement {
	var out []Measurement
	for _, c := range r.Commands {
		if strings.HasPrefix(c.Name, "plan ") {
			out = append(out, c)
		}
	}
	return out
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

func total(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// median is the median of the runs' totals.
func median(runs []map[string]int64) int64 {
	var totals []float64
	for _, m := range runs {
		totals = append(totals, float64(total(m)))
	}
	return int64(percentile(totals, 50))
}

// summarize is the runs' request totals: one number when every run made
// as many, else the range.
func summarize(runs []map[string]int64) string {
	if len(runs) == 0 {
		return ""
	}
	lo, hi := total(runs[0]), total(runs[0])
	for _, m := range runs {
		lo, hi = min(lo, total(m)), max(hi, total(m))
	}
	if lo == hi {
		return fmt.Sprint(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}
