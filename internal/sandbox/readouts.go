package sandbox

import (
	"time"
)

// CutWatches ends every watch connection open through the proxy and
// returns how many it cut.
func (sb *Sandbox) CutWatches() int { return sb.proxy.CutWatches() }

// OpenWatches is the number of watch connections open through the proxy.
func (sb *Sandbox) OpenWatches() int { return sb.proxy.OpenWatches() }

// KubeRequests is the number of requests that went through the proxy.
func (sb *Sandbox) KubeRequests() int64 { return sb.proxy.requests.Load() }

// KubeRequestCounts returns the number of Kubernetes API requests that
// went through the proxy (client traffic only: the emulated GKE and the
// slice controller talk to the API server directly), by "verb resource",
// for example "list nodes", "list-page nodes", "watch slices",
// "create slices", "get slices/status".
func (sb *Sandbox) KubeRequestCounts() map[string]int64 { return sb.proxy.countsByKey() }

// SliceMarkedActive is when the slice-controller simulator first marked
// the named Slice ACTIVE or ACTIVE_DEGRADED (the start of the status
// update that stored it), and whether it has.
func (sb *Sandbox) SliceMarkedActive(name string) (time.Time, bool) {
	return sb.controller.MarkedActive(name)
}

// Processes are the PIDs of the processes the sandbox runs (for checks
// that nothing is left behind), in the order of Parts.
func (sb *Sandbox) Processes() []int {
	var pids []int
	for _, p := range sb.processes() {
		pids = append(pids, p.cmd.Process.Pid)
	}
	return pids
}

// Parts names the processes the sandbox runs: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, kwok, the JobSet controller and
// Kueue (the workload parts unless Options.NoWorkloads left them off).
func (sb *Sandbox) Parts() []string {
	var names []string
	for _, p := range sb.processes() {
		names = append(names, p.name)
	}
	return names
}

func (sb *Sandbox) processes() []*process {
	var out []*process
	for _, p := range []*process{sb.etcd, sb.apiserver, sb.controllerManager, sb.scheduler, sb.kwok, sb.jobset, sb.kueueController} {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}
