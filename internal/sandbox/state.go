package sandbox

import (
	"net/http"
	"sort"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

// The emulated cloud's state is package cloud's World, which the emulated
// APIs (packages computeapi and gkeapi) serve and which is the slice
// controller's Cloud (cloud/slice_faults.go).

// Faults are the failures and delays the sandbox injects (cloud.Faults).
type Faults = cloud.Faults

// APIFaults are the errors and latency injected into one API.
type APIFaults = cloud.APIFaults

// Delay is one of the sandbox's timed waits (Options.Delays).
type Delay = cloud.Delay

// The kinds of Delay (cloud.Delay's).
const (
	DelayLatency         = cloud.DelayLatency
	DelayOperation       = cloud.DelayOperation
	DelayNodes           = cloud.DelayNodes
	DelaySliceActivation = cloud.DelaySliceActivation
	DelayRepair          = cloud.DelayRepair
	DelayMaintenance     = cloud.DelayMaintenance
)

// kubeHold is the kubeDenial that tells the proxy to hold the request
// and never answer it (Faults.KubeNoAnswer).
const kubeHold = cloud.KubeHold

// The kubeDenials of Faults.KubeDown.
const (
	kubeBadGateway = cloud.KubeBadGateway
	kubeReset      = cloud.KubeReset
)

// InjectedFaults counts the 429 and 503 answers the sandbox injected, by
// "api status" (e.g. "compute 503").
func (sb *Sandbox) InjectedFaults() map[string]int64 {
	sb.world.Mu.Lock()
	defer sb.world.Mu.Unlock()
	out := make(map[string]int64, len(sb.world.Injected))
	for k, v := range sb.world.Injected {
		out[k] = v
	}
	return out
}

// OperationRecord is an emulated long-running operation, for benchmarks:
// when it started and when it ended (zero while it runs).
type OperationRecord struct {
	Name, API, Type, Target string
	Started, Ended          time.Time
	Done                    bool
	Error                   string
}

// Operations returns every operation the emulated APIs started, oldest
// first.
func (sb *Sandbox) Operations() []OperationRecord {
	sb.world.Mu.Lock()
	defer sb.world.Mu.Unlock()
	out := make([]OperationRecord, 0, len(sb.world.Ops))
	for _, op := range sb.world.Ops {
		out = append(out, OperationRecord{Name: op.Name, API: op.API, Type: op.Type, Target: op.TargetLink,
			Started: op.Started, Ended: op.Ended, Done: op.Done, Error: op.ErrMessage})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out
}

// holdUnanswered returns, having written nothing, when the client of r
// gives up or the server stops: the server's Close ends the connection,
// and with it the request's context, so a held request never holds up a
// Stop.
func holdUnanswered(r *http.Request) {
	<-r.Context().Done()
}
