// Package dws emulates GKE's side of the Dynamic Workload Scheduler: the
// cluster autoscaler's answer to ProvisioningRequests
// (autoscaling.x-k8s.io/v1) of class queued-provisioning.gke.io, for node
// pools created with flex-start and queued provisioning, which start with
// no nodes. GKE's autoscaler is closed; Kueue's provisioning admission
// check, which writes the requests, is real and runs in Kueue.
//
// A request for such a pool is Accepted at once, then, after the
// provisioning delay, Provisioned with its nodes created (one per pod of
// its pod sets), tainted and labelled as GKE does, or Failed when capacity
// is set as unavailable. Its nodes go away when the run ends (every pod
// that consumed the request has ended), when the request is deleted, or
// when its maximum run duration passes (BookingExpired).
package dws

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The API the controller answers.
const (
	// ClassQueuedProvisioning is GKE's provisioning class for DWS
	// (ProvisioningRequest spec.provisioningClassName).
	ClassQueuedProvisioning = "queued-provisioning.gke.io"
	// ParamMaxRunDuration is the request's parameter that bounds how long
	// its nodes live, in seconds (GKE's default: 7 days).
	ParamMaxRunDuration = "maxRunDurationSeconds"
	// AnnotationConsume is the pod annotation that names the
	// ProvisioningRequest a pod consumes (Kueue sets it).
	AnnotationConsume = "autoscaling.x-k8s.io/consume-provisioning-request"
)

// The condition types of a ProvisioningRequest's status.
const (
	CondAccepted        = "Accepted"
	CondProvisioned     = "Provisioned"
	CondFailed          = "Failed"
	CondBookingExpired  = "BookingExpired"
	CondCapacityRevoked = "CapacityRevoked"
)

// The labels and taint of a node that DWS provisioned, as GKE sets them.
const (
	LabelNodePool    = "cloud.google.com/gke-nodepool"
	LabelQueued      = "cloud.google.com/gke-queued"
	LabelFlexStart   = "cloud.google.com/gke-flex-start"
	LabelAccelerator = "cloud.google.com/gke-tpu-accelerator"
	LabelTopology    = "cloud.google.com/gke-tpu-topology"
	LabelMachineType = "node.kubernetes.io/instance-type"
	LabelZone        = "topology.kubernetes.io/zone"
	LabelHostname    = "kubernetes.io/hostname"
	TaintQueued      = "cloud.google.com/gke-queued"
	TaintTPU         = "google.com/tpu"
	ResourceTPU      = "google.com/tpu"
)

// The sandbox's own marks on the nodes it provisions: which request they
// serve (a hash, as label values are short; the annotation has its name).
const (
	LabelRequest      = "dws.sandbox.gke.io/provisioning-request"
	AnnotationRequest = "dws.sandbox.gke.io/provisioning-request-name"
)

// DefaultMaxRunDuration is GKE's maximum run duration when the request
// sets none: 7 days.
const DefaultMaxRunDuration = 7 * 24 * time.Hour

// GVR is the resource of ProvisioningRequests.
var GVR = schema.GroupVersionResource{Group: "autoscaling.x-k8s.io", Version: "v1", Resource: "provisioningrequests"}

// Pool is a node pool created with queued provisioning, as DWS sees it.
type Pool struct {
	Name string
	// MachineType is the nodes' machine type (tpu7x-standard-4t).
	MachineType string
	// Accelerator and Topology are the TPU's (gke-tpu-accelerator,
	// gke-tpu-topology labels); ChipsPerNode its chips per node.
	Accelerator  string
	Topology     string
	ChipsPerNode int
	Zone         string
	// FlexStart: the pool was created with NodeConfig.flexStart.
	FlexStart bool
}

// Cloud is what the controller asks the emulated GKE: the pools created
// with queued provisioning, and the faults it honours.
type Cloud interface {
	// QueuedPool is the pool of that name, if it was created with queued
	// provisioning.
	QueuedPool(name string) (Pool, bool)
	// QueuedPools are all of them.
	QueuedPools() []Pool
	// CapacityUnavailable: requests fail instead of being provisioned.
	CapacityUnavailable() bool
	// ProvisionDelay is how long a request stays Accepted before it is
	// Provisioned (or Failed).
	ProvisionDelay() time.Duration
}

// Pools is a Cloud that holds its pools and faults itself: the sandbox's
// until the emulated GKE answers for its node pools, and the tests'.
type Pools struct {
	mu          sync.Mutex
	pools       map[string]Pool
	unavailable bool
	delay       time.Duration
}

// NewPools is an empty Pools whose requests are provisioned after delay.
func NewPools(delay time.Duration) *Pools {
	return &Pools{pools: map[string]Pool{}, delay: delay}
}

// Set adds or replaces a pool.
func (p *Pools) Set(pool Pool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pools[pool.Name] = pool
}

// Delete removes a pool.
func (p *Pools) Delete(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.pools, name)
}

// SetCapacityUnavailable sets the capacity-unavailable fault.
func (p *Pools) SetCapacityUnavailable(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unavailable = on
}

// SetProvisionDelay sets how long requests stay Accepted.
func (p *Pools) SetProvisionDelay(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delay = d
}

// QueuedPool implements Cloud.
func (p *Pools) QueuedPool(name string) (Pool, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pool, ok := p.pools[name]
	return pool, ok
}

// QueuedPools implements Cloud.
func (p *Pools) QueuedPools() []Pool {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Pool, 0, len(p.pools))
	for _, pool := range p.pools {
		out = append(out, pool)
	}
	return out
}

// CapacityUnavailable implements Cloud.
func (p *Pools) CapacityUnavailable() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unavailable
}

// ProvisionDelay implements Cloud.
func (p *Pools) ProvisionDelay() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.delay
}
