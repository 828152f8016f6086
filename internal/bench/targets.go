package bench

import (
	"fmt"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
)

// maxOver is the largest count of key over the runs of m.
func maxOver(runs []map[string]int64, key string) int64 {
	var n int64
	for _, c := range runs {
		n = max(n, c[key])
	}
	return n
}

func targets(r *Report) []TargetResult {
	var out []TargetResult

	var parts []string
	met := len(r.Commands) > 0
	for _, c := range r.Commands {
		if !strings.HasPrefix(c.Name, "plan ") {
			continue
		}
		lists := maxOver(c.Kube, "list nodes") + maxOver(c.Kube, "watchlist nodes")
		pages := maxOver(c.Kube, "list-page nodes")
		parts = append(parts, fmt.Sprintf("%s: %d list (+%d continuation pages)", strings.TrimPrefix(c.Name, "plan "), lists, pages))
		met = met && lists == 1
	}
	out = append(out, TargetResult{
		Name:     "Kubernetes node LISTs per plan",
		Target:   "do not grow with the number of pools (one list per provider process)",
		Measured: strings.Join(parts, "; "),
		Met:      met,
		How:      OutOfProcess,
	})

	if t, ok := kubeRequestsTarget(r); ok {
		out = append(out, t)
	}

	if t, ok := floorTarget(r); ok {
		out = append(out, t)
	}

	out = append(out, TargetResult{
		Name:     "ACTIVE seen after the simulator's status update",
		Target:   "median within 100 ms",
		Measured: fmt.Sprintf("median %.1f ms, p95 %.1f ms over %d slices", r.Active.MedianMs, r.Active.P95Ms, r.Active.Slices),
		Met:      r.Active.Slices >= 20 && r.Active.MedianMs <= 100,
		How:      InProcess,
	})

	sel := selectionBenchmarks(r)
	if len(sel) > 0 {
		worst := sel[0]
		for _, b := range sel {
			if b.NsPerOp > worst.NsPerOp {
				worst = b
			}
		}
		out = append(out, TargetResult{
			Name:     "Partition selection (2304 nodes)",
			Target:   "under 5 ms",
			Measured: fmt.Sprintf("slowest %.3f ms (%s)", worst.NsPerOp/1e6, worst.Name),
			Met:      worst.NsPerOp < 5e6,
			How:      GoBench,
		})
	}

	out = append(out, poolApplyTargets(r)...)
	return append(out, scaleTargets(r.Scale)...)
}

// maxRequestsPerPool is the target of the pool apply's GKE and Compute
// requests per pool, its create included.
const maxRequestsPerPool = 6

// poolApplyTargets are the targets of the pool apply: its overhead and its
// GKE and Compute requests per pool.
func poolApplyTargets(r *Report) []TargetResult {
	pa := r.PoolApply
	var total int64
	for _, n := range pa.GoogleRequests {
		total += n
	}
	return []TargetResult{{
		Name:     fmt.Sprintf("Provider overhead, %d-pool apply", pa.Pools),
		Target:   "under 10% of the operation time",
		Measured: fmt.Sprintf("%.0f ms over a %.0f ms operation (%.1f%%)", pa.OverheadMs, pa.OperationMs, pa.OverheadPct),
		Met:      pa.OperationMs > 0 && pa.OverheadPct < 10,
		How:      OutOfProcess,
	}, {
		Name:     fmt.Sprintf("GKE and Compute requests, %d-pool apply", pa.Pools),
		Target:   fmt.Sprintf("at most %d per pool, its create included", maxRequestsPerPool),
		Measured: fmt.Sprintf("%d requests, %.1f per pool (%s)", total, pa.RequestsPerPool(), requestList(pa.GoogleRequests)),
		Met:      pa.Pools > 0 && total > 0 && pa.RequestsPerPool() <= maxRequestsPerPool,
		How:      OutOfProcess,
	}}
}

// kubeRequestsTarget checks that the Kubernetes requests of a plan do not
// grow with the stack and stay within the client's burst, so that a plan
// never waits on client-go's rate limiter (its token bucket starts full
// with KubeBurst tokens).
func kubeRequestsTarget(r *Report) (TargetResult, bool) {
	var parts []string
	var first int64 = -1
	met := true
	for _, c := range r.Commands {
		if !strings.HasPrefix(c.Name, "plan ") {
			continue
		}
		// Continuation pages of the first list follow the number of
		// nodes, not of resources: they count against the burst only.
		var most, fixed int64
		for _, run := range c.Kube {
			var n, pages int64
			for k, v := range run {
				n += v
				if strings.HasPrefix(k, "list-page ") {
					pages += v
				}
			}
			most, fixed = max(most, n), max(fixed, n-pages)
		}
		if first < 0 {
			first = fixed
		}
		met = met && fixed == first && most <= clients.KubeBurst
		parts = append(parts, fmt.Sprintf("%s: %d", strings.TrimPrefix(c.Name, "plan "), most))
	}
	if len(parts) == 0 {
		return TargetResult{}, false
	}
	for _, t := range []struct {
		what string
		th   *ClientThrottling
	}{{"in-process plan", r.Profile.Throttling}, {"in-process apply of the slices", r.Active.Throttling}} {
		if t.th != nil {
			parts = append(parts, fmt.Sprintf("%s: %s", t.what, t.th))
			met = met && t.th.Throttled == 0
		}
	}
	return TargetResult{
		Name:     "Kubernetes requests per plan",
		Target:   fmt.Sprintf("the same at every size (but the node list's pages), within the client's burst (%d at %d QPS): a plan never waits on client-side throttling", clients.KubeBurst, clients.KubeQPS),
		Measured: strings.Join(parts, "; "),
		Met:      met,
		How:      OutOfProcess,
	}, true
}

// String says how many requests the rate limiters saw and how many of
// them waited.
func (t *ClientThrottling) String() string {
	return fmt.Sprintf("%d requests through client-go's rate limiter, %d waited %s or more (longest %.1f ms)", t.Requests, t.Throttled, throttledAfter, t.LongestWaitMs)
}

// floorTargetRatio is how close to its floor a plan is held.
const floorTargetRatio = 1.5

// floorTarget compares the plan of the pod stack with its many slices
// (144 pools and 36 slices of 4x8x8 at full scale) with its floor, when
// the run planned that stack.
func floorTarget(r *Report) (TargetResult, bool) {
	for _, c := range r.Commands {
		if !strings.HasPrefix(c.Name, "plan ") || c.Slices <= 1 {
			continue
		}
		t := TargetResult{
			Name:     fmt.Sprintf("Plan of %d pools + %d slices against its floor", c.Pools, c.Slices),
			Target:   fmt.Sprintf("within %.1f× the floor (a plan of as many no-op resources)", floorTargetRatio),
			Measured: "no floor measured",
			How:      OutOfProcess,
		}
		if ratio := floorRatio(c); ratio > 0 {
			t.Measured = fmt.Sprintf("%.2f s against a floor of %.2f s (%d resources): %.2f×", c.MedianMs/1000, c.FloorMedianMs/1000, c.FloorResources, ratio)
			t.Met = ratio <= floorTargetRatio
			if sr := schemaFloorRatio(c); sr > 0 {
				t.Measured += fmt.Sprintf("; the schema floor (the same %d resources and values through the provider's schemas, no provider work) took %.2f s: "+
					"the schemas' own cost is %.2f× the floor, the provider's work and the module's evaluation %.2f× on top", c.SchemaFloorResources, c.SchemaFloorMedianMs/1000, c.SchemaFloorMedianMs/c.FloorMedianMs, sr)
			}
			if c := r.Profile.CPU; c != nil && c.ProviderMs+c.FrameworkMs > 0 {
				t.Measured += fmt.Sprintf("; of the provider's CPU in the RPCs of the in-process plan, terraform-plugin-framework's work "+
					"around the handlers was %.0f%% (%.2f s), the handlers and engine %.2f s", 100*c.FrameworkShare(), c.FrameworkMs/1000, c.ProviderMs/1000)
			}
		}
		return t, true
	}
	return TargetResult{}, false
}
