package bench

import (
	"sort"
	"strings"
)

// writeRequests writes the requests of one plan (or refresh), by verb
// and resource.
func (r *Report) writeRequests(w printf) {
	var plans []Measurement
	for _, c := range r.Commands {
		if strings.HasPrefix(c.Name, "plan ") {
			plans = append(plans, c)
		}
	}
	same := sameRequests(r.Commands)
	w(`
Each command is the real ` + "`terraform`" + ` with the provider as its own process (median of the runs).
Requests are counted where they arrive: Kubernetes requests at the sandbox's TLS proxy in front of the API server
(the emulated GKE and the slice simulator go around it), GKE and Compute requests in the emulated APIs. `)
	if same {
		w("Every run of every plan and refresh made the same requests:\n\n")
	} else {
		w("The requests of one plan, a range where runs differ:\n\n")
	}
	w("| Requests of one plan")
	if same {
		w(" or refresh")
	}
	w(" |")
	for _, c := range plans {
		w(" %s |", strings.TrimPrefix(c.Name, "plan "))
	}
	w("\n|---|%s\n", strings.Repeat("---|", len(plans)))
	for _, kind := range []struct {
		prefix string
		runs   func(Measurement) []map[string]int64
	}{
		{"Kubernetes ", func(c Measurement) []map[string]int64 { return c.Kube }},
		{"", func(c Measurement) []map[string]int64 { return c.Google }},
	} {
		for _, k := range keysOf(plans, kind.runs) {
			w("| %s`%s` |", kind.prefix, k)
			for _, c := range plans {
				lo, hi := countRange(kind.runs(c), k)
				w(" %s |", rangeString(lo, hi))
			}
			w("\n")
		}
	}
	w(`
One provider process lists (a streaming watch-list) and then watches nodes and Slices once, and every node pool and
slice reads the nodes from that; the node pool reads and ` + "`gke_reservation_sub_blocks`" + ` share one ` + "`nodePools.list`" + ` of the
cluster (a pool the list lacks, or a list that fails, is read with ` + "`nodePools.get`" + `). So the count is not meant to grow
with the stack.
`)
}

// writeProfile writes where the time of the profiled plan goes, by gRPC
// call, when the run has a profile.
func (r *Report) writeProfile(w printf) {
	if p := r.Profile; p.Name != "" {
		w("\n### Where the time of a plan goes\n\nIn process: one %s, each gRPC call timed (calls run concurrently, up to Terraform's `-parallelism` of 10).\n\nWall time of that plan: %.2f s.\n\n| gRPC call | Calls | Total | Slowest |\n|---|---|---|---|\n", p.Name, p.WallMs/1000)
		var names []string
		for k := range p.RPCs {
			names = append(names, k)
		}
		sort.Strings(names)
		var total, plan, read float64
		for _, k := range names {
			t := p.RPCs[k]
			total += t.TotalMs
			switch {
			case strings.HasPrefix(k, "PlanResourceChange"):
				plan += t.TotalMs
			case strings.HasPrefix(k, "ReadResource"), strings.HasPrefix(k, "ReadDataSource"):
				read += t.TotalMs
			}
			w("| `%s` | %d | %.0f ms | %.0f ms |\n", k, t.Calls, t.TotalMs, t.MaxMs)
		}
		w("| all calls | | %.0f ms | |\n", total)
		if total > 0 {
			w("\nPlans took %.0f%% of the call time and reads %.0f%%. The calls share the two cores with Terraform, the API server\n"+
				"and etcd, so much of a call's time is waiting for a core; `-cpuprofile` shows where the CPU goes.\n", 100*plan/total, 100*read/total)
		}
		writePhases(w, p)
		if c := p.CPU; c != nil {
			w("\nWhere the CPU of the provider's side of that plan went (a CPU profile of the process that serves the provider; "+
				"the sandbox's share, %.0f ms, is left out):\n\n"+
				"| Part | CPU |\n|---|---|\n"+
				"| RPCs: terraform-plugin-framework and the plugin protocol around the handlers (decoding and walking every value, plan modifiers, defaults, semantic equality) | %.0f ms |\n"+
				"| RPCs: this provider's handlers and engine (and the framework calls they make) | %.0f ms |\n"+
				"| client-go outside RPCs (informers and watches, the sandbox controllers' too) | %.0f ms |\n"+
				"| garbage collector | %.0f ms |\n| other (gRPC transport, scheduler) | %.0f ms |\n"+
				"\nThe framework's part grows with the number of values times the number of attributes of the schema: every value "+
				"of a request is walked, and each step looks its attribute up in a copy of the schema's attribute map "+
				"([terraform-plugin-framework#775](https://github.com/hashicorp/terraform-plugin-framework/issues/775)). A slice that "+
				"lists 144 node pools in its selector carries 144 more values in each of its config, plan and state: the stack's "+
				"slices select by their workload policy instead (`partition_selector.workload_policy`), one value for all its pools.\n",
				c.SandboxMs, c.FrameworkMs, c.ProviderMs, c.KubeClientMs, c.GCMs, c.OtherMs)
		}
		if p.Throttling != nil {
			w("\nClient-side throttling (client-go's rate limiter latency metric, every Kubernetes client of the benchmark process): "+
				"during this plan, %s; during the in-process apply of its slices, %s.\n", p.Throttling, r.Active.Throttling)
		}
	}
}

// writePhases writes when, from the plan's start, the provider served
// each kind of RPC, how long every pool and slice waited for the data
// source's read, and how long the pools' first read waited for the first
// list of the nodes, when the run recorded them.
func writePhases(w printf, p PlanProfile) {
	if len(p.Phases) == 0 {
		return
	}
	w("\nWhen each kind of call ran, in ms from the start of `terraform plan` (busy: the calls' times summed):\n\n" +
		"| gRPC call | Calls | First began | Last ended | Busy |\n|---|---|---|---|---|\n")
	for _, ph := range p.Phases {
		w("| `%s` | %d | %.0f | %.0f | %.0f ms |\n", ph.RPC, ph.Calls, ph.StartMs, ph.EndMs, ph.BusyMs)
	}
	for _, ph := range p.Phases {
		switch {
		case p.WallMs <= 0:
		case strings.HasPrefix(ph.RPC, "ReadDataSource") && ph.Calls == 1:
			w("\nThe stack's pools take their sub-blocks from `%s`, so every pool and slice waits for its read: "+
				"%.0f ms, %.0f%% of the plan's wall time. It reads the reservation block and its sub-blocks from Compute Engine "+
				"and the cluster's node pools from GKE, and starts the provider's first list of the cluster's nodes without waiting "+
				"for it.\n", strings.TrimPrefix(ph.RPC, "ReadDataSource "), ph.EndMs-ph.StartMs, 100*(ph.EndMs-ph.StartMs)/p.WallMs)
		case ph.RPC == "ReadResource gke_subblock_node_pool" && ph.Calls > 1 && ph.FirstCallMs > 0:
			rest := (ph.BusyMs - ph.FirstCallMs) / float64(ph.Calls-1)
			w("\nThe first `gke_subblock_node_pool` read took %.0f ms: it waited, with the reads that began beside it, for that "+
				"first list of the nodes (the pools' partitions are on the nodes' labels). The %d others took %.1f ms each on "+
				"average; those that began beside it waited too, and the rest read the nodes from memory.\n", ph.FirstCallMs, ph.Calls-1, rest)
		}
	}
}

// sameRequests says whether every run of every command made the same
// requests.
func sameRequests(cs []Measurement) bool {
	var first map[string]int64
	for _, c := range cs {
		for i := range c.Kube {
			run := map[string]int64{}
			for k, v := range c.Kube[i] {
				run["kube "+k] = v
			}
			if i < len(c.Google) {
				for k, v := range c.Google[i] {
					run[k] = v
				}
			}
			if first == nil {
				first = run
				continue
			}
			if !equalCounts(first, run) {
				return false
			}
		}
	}
	return true
}

func equalCounts(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// keysOf is every request key of the measurements, sorted.
func keysOf(ms []Measurement, runs func(Measurement) []map[string]int64) []string {
	set := map[string]bool{}
	for _, c := range ms {
		for _, run := range runs(c) {
			for k := range run {
				set[k] = true
			}
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// countRange is the least and most requests of key over the runs.
func countRange(runs []map[string]int64, key string) (int64, int64) {
	var lo, hi int64 = -1, 0
	for _, c := range runs {
		v := c[key]
		if lo < 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	return max(lo, 0), hi
}
