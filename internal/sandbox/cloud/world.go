package cloud

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dws"
)

// World is the emulated cloud behind the sandbox's GKE and Compute APIs:
// the inventory's sub-blocks and their hosts, resource policies, node
// pools and long-running operations. One mutex guards it all.
type World struct {
	Mu        sync.Mutex
	Inv       *Inventory
	SubBlocks []*SubBlockState
	Policies  map[string]*ResourcePolicy // by region + "/" + name
	NodePools map[string]*NodePool       // by pool name (one cluster)
	Ops       map[string]*Operation      // by operation name
	Faults    Faults
	// DWS is the emulated DWS's view of the pools created with queued
	// provisioning (the GKE API's queued pools); nil until it starts.
	DWS   *dws.Pools
	opSeq atomic.Int64
	// ClusterEndpoint and ClusterCA describe the Kubernetes API for
	// clusters.get: host:port of the sandbox proxy and its CA (PEM).
	ClusterEndpoint string
	ClusterCA       []byte
	// ClusterVersion is the GKE version of the cluster and its pools.
	ClusterVersion string
	// Created is when the cluster and the reservations were made: when the
	// sandbox started.
	Created time.Time
	// Kube is the Kubernetes client the emulated GKE uses for Nodes.
	Kube kubernetes.Interface
	// PartLogs names the log files of kwok (the nodes' kubelet) and
	// Kube-controller-manager, for errors about what they should have done.
	PartLogs string
	// NodeLifecycle is whether kube-controller-manager (its node lifecycle
	// controller) runs.
	NodeLifecycle bool
	// NodeReadyTimeout bounds the wait for a pool's nodes to report their
	// readiness; 0 is the constant NodeReadyTimeout.
	NodeReadyTimeout time.Duration
	// Schedule, when set, runs the world's delays (Delay, After) in place
	// of timers: it is given each delay and calls then once that delay is
	// to end, in a goroutine of its own (then may take the locks of the
	// one that called After), and never before it returns. Set before the
	// world serves; Options.Delays sets it for the sandbox's tests.
	Schedule func(d Delay, then func())
	// Token is the bearer token every API call must carry.
	Token string
	// Requests counts API requests by "api verb path-kind" for benchmarks.
	Requests sync.Map // string -> *atomic.Int64
	// faultStreaks counts, by "api method path", the faults injected in a
	// row into one request and its retries (APIFaults.MaxBurst).
	faultStreaks map[string]int
	// Injected counts the injected 429 and 503 answers by "api status".
	Injected map[string]int64
	// Held are the operations the APIs' HoldOperations faults hold.
	Held HeldOperations
}

// NewWorld is the world of an inventory at its start: every host as the
// inventory says, no policy, node pool or operation, and no fault. Every
// API call must carry token.
func NewWorld(inv *Inventory, token string) *World {
	version := inv.ClusterVersion
	if version == "" {
		version = DefaultClusterVersion
	}
	return &World{
		Inv:            inv,
		SubBlocks:      NewSubBlockStates(inv),
		Policies:       map[string]*ResourcePolicy{},
		NodePools:      map[string]*NodePool{},
		Ops:            map[string]*Operation{},
		faultStreaks:   map[string]int{},
		Injected:       map[string]int64{},
		Token:          token,
		ClusterVersion: version,
		Created:        time.Now(),
	}
}

// ResourcePolicy is a Compute Engine resource policy (a workload policy).
type ResourcePolicy struct {
	Name, Region, Description string
	ID                        uint64
	Created                   time.Time
	// Workload policy fields, as the API spells their values.
	Type, AcceleratorTopology, AcceleratorTopologyMode, MaxTopologyDistance string
}

// NodePool is a GKE node pool placed on one sub-block.
type NodePool struct {
	Name, MachineType, PolicyName, ReservationPath string
	NodeCount                                      int
	Locations                                      []string
	Labels                                         map[string]string
	// Raw is the node pool as the client sent it, echoed back on reads
	// with server-set fields added.
	Raw      map[string]any
	SubBlock *SubBlockState
	Status   string // PROVISIONING, RUNNING, STOPPING, ERROR
	Created  time.Time
	// Queued: created with queued provisioning (and flex-start), it has
	// no sub-block and no node of its own (package gkeapi, queued.go).
	Queued bool
	// ReconcileMu serializes reconciles of the pool's Nodes.
	ReconcileMu sync.Mutex
	// Operation names the pool's own create or delete operation, the
	// last one started; while it runs, GKE refuses to delete the pool.
	Operation string
}

// FindSubBlock returns the named sub-block, or nil.
func (w *World) FindSubBlock(reservation, block, name string) *SubBlockState {
	for _, s := range w.SubBlocks {
		if s.Reservation == reservation && s.Block == block && s.Name == name {
			return s
		}
	}
	return nil
}

// SubBlocksOf returns the sub-blocks of a block, in inventory order.
func (w *World) SubBlocksOf(reservation, block string) []*SubBlockState {
	var out []*SubBlockState
	for _, s := range w.SubBlocks {
		if s.Reservation == reservation && s.Block == block {
			out = append(out, s)
		}
	}
	return out
}

// SubBlockByPartition returns the sub-block whose partition ID is id.
func (w *World) SubBlockByPartition(id string) *SubBlockState {
	for _, s := range w.SubBlocks {
		if s.PartitionID() == id {
			return s
		}
	}
	return nil
}

// Operation is a long-running operation of either API.
type Operation struct {
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

// StartOperation records a new operation and runs work in the background
// after the emulated operation time; work returns the operation's error,
// if any. An injected failure (Faults.FailOperations) replaces the work.
func (w *World) StartOperation(api, opType, scope, target string, work func() *OpError) *Operation {
	return w.StartOperationOnFail(api, opType, scope, target, work, nil)
}

// StartOperationOnFail is StartOperation with a callback run (without the
// lock) when the operation ends in an error, injected or not: a failed GKE
// create leaves its node pool in the ERROR state, for example.
func (w *World) StartOperationOnFail(api, opType, scope, target string, work func() *OpError, onFail func(*OpError)) *Operation {
	w.Mu.Lock()
	op := &Operation{
		Name:       fmt.Sprintf("operation-%d-%08x", time.Now().UnixMilli(), w.opSeq.Add(1)),
		API:        api,
		Type:       opType,
		Scope:      scope,
		TargetLink: target,
		Started:    time.Now(),
	}
	w.Ops[op.Name] = op
	delay := time.Duration(w.Faults.OperationDelayMs) * time.Millisecond
	injected := w.Faults.TakeOperationFailure(opType)
	w.Mu.Unlock()

	run := func() {
		var e *OpError
		if injected != nil {
			e = injected
		} else {
			e = work()
		}
		if e != nil && onFail != nil {
			onFail(e)
		}
		w.Mu.Lock()
		defer w.Mu.Unlock()
		op.Done, op.Ended = true, time.Now()
		if e != nil {
			op.ErrCode, op.ErrMessage = e.Code, e.Message
		}
	}
	if delay > 0 {
		w.After(Delay{Kind: DelayOperation, Of: op.Name, For: delay}, run)
	} else {
		go run()
	}
	return op
}

// OpError is how an operation failed.
type OpError struct {
	Code    int
	Message string
}
