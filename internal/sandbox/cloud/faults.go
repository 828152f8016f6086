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
	// RateCutJSON, RateProxyPage, RateEmpty200 and RateWrongShape are the
	// fractions (0..1) of requests answered as a broken proxy or front end
	// answers: the API's own answer cut in the middle of its JSON (the
	// request was served); a proxy's HTML error page, 502 Bad Gateway (it
	// never reached the API); a 200 with an empty body (the request was
	// served, its answer lost); a 200 with JSON of another shape, the
	// API's answer inside a gateway's envelope of its own (the request was
	// served), an object none of whose members is a field of the API's
	// message. MaxBurst bounds them as it bounds 429 and 503.
	RateCutJSON    float64 `json:"rateCutJson,omitempty"`
	RateProxyPage  float64 `json:"rateProxyPage,omitempty"`
	RateEmpty200   float64 `json:"rateEmpty200,omitempty"`
	RateWrongShape float64 `json:"rateWrongShape,omitempty"`
	// HoldOperations makes the next N operations the API starts never
	// finish: every answer that shows one (the answer to the change that
	// started it, each get or wait of it) says RUNNING, whatever the API
	// did behind it, for as long as the sandbox runs.
	HoldOperations int `json:"holdOperations,omitempty"`
	// HoldOperationsMs, when above 0, ends the hold of each operation
	// HoldOperations holds that long after the answer that started it:
	// from then on the answers show the operation as it is (DONE, when
	// the API's work is). 0 holds it for as long as the sandbox runs.
	HoldOperationsMs int `json:"holdOperationsMs,omitempty"`
}

// The faults an API's request may get instead of its answer.
const (
	FaultNone       = ""
	Fault429        = "429"
	Fault503        = "503"
	FaultCutJSON    = "cut-json"
	FaultProxyPage  = "proxy-page"
	FaultEmpty200   = "empty-200"
	FaultWrongShape = "wrong-shape"
)

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

// Fault rolls the API's rates for a request: the fault to answer it with,
// or FaultNone to serve it. streak is how many faults this request (its
// method and path) got in a row; MaxBurst caps it.
func (a APIFaults) Fault(streak int) string {
	if a.MaxBurst > 0 && streak >= a.MaxBurst {
		return FaultNone
	}
	roll := rand.Float64()
	for _, f := range []struct {
		rate  float64
		fault string
	}{{a.Rate429, Fault429}, {a.Rate503, Fault503}, {a.RateCutJSON, FaultCutJSON}, {a.RateProxyPage, FaultProxyPage}, {a.RateEmpty200, FaultEmpty200},
		{a.RateWrongShape, FaultWrongShape}} {
		if roll < f.rate {
			return f.fault
		}
		roll -= f.rate
	}
	return FaultNone
}

// FaultStatus is the status of an injected 429 or 503 for a request, or 0
// (Fault rolls every fault).
func (a APIFaults) FaultStatus(streak int) int {
	switch a.Fault(streak) {
	case Fault429:
		return http.StatusTooManyRequests
	case Fault503:
		return http.StatusServiceUnavailable
	}
	return 0
}

// InjectFault decides, under the world's lock, which fault (FaultNone for
// none) the api's request r gets, keeping the request's streak and the
// counts of injected faults ("api 429", "api cut-json").
func (w *World) InjectFault(api string, a APIFaults, r *http.Request) string {
	key := api + " " + r.Method + " " + r.URL.Path
	w.Mu.Lock()
	defer w.Mu.Unlock()
	fault := a.Fault(w.faultStreaks[key])
	if fault == FaultNone {
		delete(w.faultStreaks, key)
		return FaultNone
	}
	if w.faultStreaks == nil {
		w.faultStreaks = map[string]int{}
	}
	if w.Injected == nil {
		w.Injected = map[string]int64{}
	}
	w.faultStreaks[key]++
	w.Injected[api+" "+fault]++
	return fault
}
