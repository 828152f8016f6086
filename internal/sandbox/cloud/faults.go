package cloud

import (
	"fmt"
	"math/rand/v2"
	"net/http"
)

// Faults are the failures and delays the sandbox injects. They are set at
// start (Options.Faults) and changed at run time through the control
// endpoint or Sandbox.SetFaults.
type Faults struct {
	Compute   APIFaults `json:"compute"`
	Container APIFaults `json:"container"`
	// OperationDelayMs is how long every emulated long-running operation
	// takes (node pool create and delete, policy insert and delete). An
	// operation keeps the delay in force when it started.
	OperationDelayMs int `json:"operationDelayMs"`
	// FailOperations makes the next N operations of a type fail, for
	// example {"CREATE_NODE_POOL": 1} or {"insert": 2}.
	FailOperations map[string]int `json:"failOperations,omitempty"`
	// NodeProvisionDelayMs delays the Nodes of a new pool after its
	// operation is done, as GKE registers nodes after the MIG creates VMs.
	NodeProvisionDelayMs int `json:"nodeProvisionDelayMs"`
	// SliceActivationDelayMs is how long a Slice stays ACTIVATING.
	SliceActivationDelayMs int `json:"sliceActivationDelayMs"`
	// FailSliceFormations makes the next N slices that reach ACTIVATING
	// end FAILED, as a formation failure would.
	FailSliceFormations int `json:"failSliceFormations"`
	// KubeDeny makes the sandbox's Kubernetes endpoint answer every
	// request for a resource ("nodes", "slices") with an HTTP status
	// instead of serving it: 401, 403 or 404 (for slices: a cluster
	// without the Slice CRD). The slice simulator and the emulated GKE
	// are not affected.
	KubeDeny map[string]int `json:"kubeDeny,omitempty"`
	// HoldSliceFinalizers keeps deleted slices in INCOMPLETE with their
	// finalizer, as a stuck controller would.
	HoldSliceFinalizers bool `json:"holdSliceFinalizers"`
	// KubeNoAnswer makes the sandbox's Kubernetes endpoint take every
	// request and never answer it, as a host behind a proxy or firewall
	// that holds connections does: the request is held, with nothing
	// written, until the client gives up or the sandbox stops. The slice
	// simulator and the emulated GKE are not affected.
	KubeNoAnswer bool `json:"kubeNoAnswer"`
	// KubeDown makes the sandbox's Kubernetes endpoint answer as it does
	// when the kube-apiserver behind it is dead: "bad-gateway" answers
	// every request 502, as the proxy (or a load balancer) does when
	// nothing listens behind it; "reset" resets every request's stream
	// or connection. Setting it cuts the open watches, as the API
	// server's death does. The slice simulator and the emulated GKE are
	// not affected.
	KubeDown string `json:"kubeDown,omitempty"`
	// FaultyRepairMs is how long hosts reported faulty (reportFaulty,
	// reportHostAsFaulty) stay UNHEALTHY before they are repaired: 0
	// means 10 s, a negative value never.
	FaultyRepairMs int `json:"faultyRepairMs,omitempty"`
	// MaintenanceMs is how long started maintenance (performMaintenance)
	// stays ONGOING, its hosts UNHEALTHY: 0 means 3 s.
	MaintenanceMs int `json:"maintenanceMs,omitempty"`
	// DWSCapacityUnavailable makes the emulated Dynamic Workload
	// Scheduler fail the ProvisioningRequests it has accepted, for want of
	// capacity, instead of provisioning them.
	DWSCapacityUnavailable bool `json:"dwsCapacityUnavailable,omitempty"`
	// DWSProvisionDelayMs is how long a ProvisioningRequest stays Accepted
	// before it is Provisioned: 0 means 2 s, a negative value none.
	DWSProvisionDelayMs int `json:"dwsProvisionDelayMs,omitempty"`
}

// APIFaults are the errors and latency injected into one API.
type APIFaults struct {
	// Rate429 and Rate503 are the fractions (0..1) of requests answered
	// 429 Too Many Requests and 503 Service Unavailable.
	Rate429 float64 `json:"rate429"`
	Rate503 float64 `json:"rate503"`
	// MaxBurst, when above 0, bounds the 429 and 503 answers one request
	// gets in a row: after MaxBurst of them, the next try of the same
	// method and path is served. A client whose retry budget exceeds it
	// always gets through, so a test of retries does not fail by chance.
	MaxBurst int `json:"maxBurst,omitempty"`
	// LatencyMs is added to every request.
	LatencyMs int `json:"latencyMs"`
	// ApplyThen503 serves the next N POST requests (creates) and then
	// answers them 503 instead of their answer, as when a response is
	// lost after the server applied the request.
	ApplyThen503 int `json:"applyThen503,omitempty"`
	// NoAnswer makes the API take every request and never answer it: the
	// request is held, with nothing written, until the client gives up
	// or the sandbox stops.
	NoAnswer bool `json:"noAnswer"`
}

// KubeHold is the KubeDenial that tells the proxy to hold the request
// and never answer it (Faults.KubeNoAnswer).
const KubeHold = -1

// The KubeDenials of Faults.KubeDown.
const (
	KubeBadGateway = -2
	KubeReset      = -3
)

// KubeDenial is the status KubeDeny gives resource, KubeHold when
// KubeNoAnswer is set, KubeBadGateway or KubeReset when KubeDown is, or 0.
func (w *World) KubeDenial(resource string) int {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	if w.Faults.KubeNoAnswer {
		return KubeHold
	}
	switch w.Faults.KubeDown {
	case "bad-gateway":
		return KubeBadGateway
	case "reset":
		return KubeReset
	}
	return w.Faults.KubeDeny[resource]
}

func (f *Faults) TakeOperationFailure(opType string) *OpError {
	if f.FailOperations[opType] <= 0 {
		return nil
	}
	f.FailOperations[opType]--
	return &OpError{Code: http.StatusInternalServerError, Message: fmt.Sprintf("injected failure of a %s operation (sandbox fault)", opType)}
}

// FaultStatus rolls the 429 and 503 rates for a request: the status to
// answer it with, or 0 to serve it. streak is how many faults this request
// (its method and path) got in a row; MaxBurst caps it.
func (a APIFaults) FaultStatus(streak int) int {
	if a.MaxBurst > 0 && streak >= a.MaxBurst {
		return 0
	}
	roll := rand.Float64()
	switch {
	case roll < a.Rate429:
		return http.StatusTooManyRequests
	case roll < a.Rate429+a.Rate503:
		return http.StatusServiceUnavailable
	}
	return 0
}

// InjectFault decides, under the world's lock, whether the api's request
// r gets an injected 429 or 503, keeping the request's streak and the
// counts of injected faults.
func (w *World) InjectFault(api string, a APIFaults, r *http.Request) int {
	key := api + " " + r.Method + " " + r.URL.Path
	w.Mu.Lock()
	defer w.Mu.Unlock()
	status := a.FaultStatus(w.faultStreaks[key])
	if status == 0 {
		delete(w.faultStreaks, key)
		return 0
	}
	w.faultStreaks[key]++
	w.Injected[fmt.Sprintf("%s %d", api, status)]++
	return status
}
