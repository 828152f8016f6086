package sandbox

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dws"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// world is the emulated cloud behind the sandbox's GKE and Compute APIs:
// the inventory's sub-blocks and their hosts, resource policies, node
// pools and long-running operations. One mutex guards it all.
type world struct {
	mu        sync.Mutex
	inv       *Inventory
	subBlocks []*subBlockState
	policies  map[string]*resourcePolicy // by region + "/" + name
	nodePools map[string]*nodePool       // by pool name (one cluster)
	ops       map[string]*operation      // by operation name
	faults    Faults
	// dws is the emulated DWS's view of the pools created with queued
	// provisioning (container_queued.go); nil until it starts.
	dws   *dws.Pools
	opSeq atomic.Int64
	// clusterEndpoint and clusterCA describe the Kubernetes API for
	// clusters.get: host:port of the sandbox proxy and its CA (PEM).
	clusterEndpoint string
	clusterCA       []byte
	// clusterVersion is the GKE version of the cluster and its pools.
	clusterVersion string
	// created is when the cluster and the reservations were made: when the
	// sandbox started.
	created time.Time
	// kube is the Kubernetes client the emulated GKE uses for Nodes.
	kube kubernetes.Interface
	// partLogs names the log files of kwok (the nodes' kubelet) and
	// kube-controller-manager, for errors about what they should have done.
	partLogs string
	// nodeLifecycle is whether kube-controller-manager (its node lifecycle
	// controller) runs.
	nodeLifecycle bool
	// token is the bearer token every API call must carry.
	token string
	// requests counts API requests by "api verb path-kind" for benchmarks.
	requests sync.Map // string -> *atomic.Int64
	// faultStreaks counts, by "api method path", the faults injected in a
	// row into one request and its retries (APIFaults.MaxBurst).
	faultStreaks map[string]int
	// injected counts the injected 429 and 503 answers by "api status".
	injected map[string]int64
}

func newWorld(inv *Inventory, token string) *world {
	version := inv.ClusterVersion
	if version == "" {
		version = DefaultClusterVersion
	}
	return &world{
		inv:            inv,
		subBlocks:      cloud.NewSubBlockStates(inv),
		policies:       map[string]*resourcePolicy{},
		nodePools:      map[string]*nodePool{},
		ops:            map[string]*operation{},
		faultStreaks:   map[string]int{},
		injected:       map[string]int64{},
		token:          token,
		clusterVersion: version,
		created:        time.Now(),
	}
}

// resourcePolicy is a Compute Engine resource policy (a workload policy).
type resourcePolicy struct {
	Name, Region, Description string
	ID                        uint64
	Created                   time.Time
	// Workload policy fields, as the API spells their values.
	Type, AcceleratorTopology, AcceleratorTopologyMode, MaxTopologyDistance string
}

// nodePool is a GKE node pool placed on one sub-block.
type nodePool struct {
	Name, MachineType, PolicyName, ReservationPath string
	NodeCount                                      int
	Locations                                      []string
	Labels                                         map[string]string
	// Raw is the node pool as the client sent it, echoed back on reads
	// with server-set fields added.
	Raw      map[string]any
	SubBlock *subBlockState
	Status   string // PROVISIONING, RUNNING, STOPPING, ERROR
	Created  time.Time
	// Queued: created with queued provisioning (and flex-start), it has
	// no sub-block and no node of its own (container_queued.go).
	Queued bool
	// reconcileMu serializes reconciles of the pool's Nodes.
	reconcileMu sync.Mutex
}

// findSubBlock returns the named sub-block, or nil.
func (w *world) findSubBlock(reservation, block, name string) *subBlockState {
	for _, s := range w.subBlocks {
		if s.Reservation == reservation && s.Block == block && s.Name == name {
			return s
		}
	}
	return nil
}

// subBlocksOf returns the sub-blocks of a block, in inventory order.
func (w *world) subBlocksOf(reservation, block string) []*subBlockState {
	var out []*subBlockState
	for _, s := range w.subBlocks {
		if s.Reservation == reservation && s.Block == block {
			out = append(out, s)
		}
	}
	return out
}

// subBlockByPartition returns the sub-block whose partition ID is id.
func (w *world) subBlockByPartition(id string) *subBlockState {
	for _, s := range w.subBlocks {
		if s.PartitionID() == id {
			return s
		}
	}
	return nil
}

// operation is a long-running operation of either API.
type operation struct {
	Name       string
	API        string // "compute" or "container"
	Type       string // compute: insert, delete; GKE: CREATE_NODE_POOL, DELETE_NODE_POOL
	Scope      string // "regions/R", "zones/Z" (compute) or "locations/L" (GKE)
	TargetLink string
	Started    time.Time
	Ended      time.Time
	Done       bool
	// ErrCode and ErrMessage are set when the operation failed: an HTTP
	// status for Compute, a google.rpc.Code for GKE.
	ErrCode    int
	ErrMessage string
}

// startOperation records a new operation and runs work in the background
// after the emulated operation time; work returns the operation's error,
// if any. An injected failure (Faults.FailOperations) replaces the work.
func (w *world) startOperation(api, opType, scope, target string, work func() *opError) *operation {
	return w.startOperationOnFail(api, opType, scope, target, work, nil)
}

// startOperationOnFail is startOperation with a callback run (without the
// lock) when the operation ends in an error, injected or not: a failed GKE
// create leaves its node pool in the ERROR state, for example.
func (w *world) startOperationOnFail(api, opType, scope, target string, work func() *opError, onFail func(*opError)) *operation {
	w.mu.Lock()
	op := &operation{
		Name:       fmt.Sprintf("operation-%d-%08x", time.Now().UnixMilli(), w.opSeq.Add(1)),
		API:        api,
		Type:       opType,
		Scope:      scope,
		TargetLink: target,
		Started:    time.Now(),
	}
	w.ops[op.Name] = op
	delay := time.Duration(w.faults.OperationDelayMs) * time.Millisecond
	injected := w.faults.takeOperationFailure(opType)
	w.mu.Unlock()

	go func() {
		time.Sleep(delay)
		var e *opError
		if injected != nil {
			e = injected
		} else {
			e = work()
		}
		if e != nil && onFail != nil {
			onFail(e)
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		op.Done, op.Ended = true, time.Now()
		if e != nil {
			op.ErrCode, op.ErrMessage = e.Code, e.Message
		}
	}()
	return op
}

// opError is how an operation failed.
type opError struct {
	Code    int
	Message string
}

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

// kubeHold is the kubeDenial that tells the proxy to hold the request
// and never answer it (Faults.KubeNoAnswer).
const kubeHold = -1

// kubeDenial is the status KubeDeny gives resource, kubeHold when
// KubeNoAnswer is set, or 0.
func (w *world) kubeDenial(resource string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.faults.KubeNoAnswer {
		return kubeHold
	}
	return w.faults.KubeDeny[resource]
}

func (f *Faults) takeOperationFailure(opType string) *opError {
	if f.FailOperations[opType] <= 0 {
		return nil
	}
	f.FailOperations[opType]--
	return &opError{Code: http.StatusInternalServerError, Message: fmt.Sprintf("injected failure of a %s operation (sandbox fault)", opType)}
}

// faultStatus rolls the 429 and 503 rates for a request: the status to
// answer it with, or 0 to serve it. streak is how many faults this request
// (its method and path) got in a row; MaxBurst caps it.
func (a APIFaults) faultStatus(streak int) int {
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

// injectFault decides, under the world's lock, whether the api's request
// r gets an injected 429 or 503, keeping the request's streak and the
// counts of injected faults.
func (w *world) injectFault(api string, a APIFaults, r *http.Request) int {
	key := api + " " + r.Method + " " + r.URL.Path
	w.mu.Lock()
	defer w.mu.Unlock()
	status := a.faultStatus(w.faultStreaks[key])
	if status == 0 {
		delete(w.faultStreaks, key)
		return 0
	}
	w.faultStreaks[key]++
	w.injected[fmt.Sprintf("%s %d", api, status)]++
	return status
}

// writeFault answers a request with an injected fault, in the API's error
// shape.
func writeFault(w http.ResponseWriter, status int) {
	if status == http.StatusTooManyRequests {
		googleapi.WriteError(w, status, "RESOURCE_EXHAUSTED", "Rate Limit Exceeded (sandbox fault)", "rateLimitExceeded")
		return
	}
	googleapi.WriteError(w, http.StatusServiceUnavailable, "UNAVAILABLE", "The service is currently unavailable (sandbox fault)", "backendError")
}

// InjectedFaults counts the 429 and 503 answers the sandbox injected, by
// "api status" (e.g. "compute 503").
func (sb *Sandbox) InjectedFaults() map[string]int64 {
	sb.world.mu.Lock()
	defer sb.world.mu.Unlock()
	out := make(map[string]int64, len(sb.world.injected))
	for k, v := range sb.world.injected {
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
	sb.world.mu.Lock()
	defer sb.world.mu.Unlock()
	out := make([]OperationRecord, 0, len(sb.world.ops))
	for _, op := range sb.world.ops {
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
