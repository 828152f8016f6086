package engine

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// The engine's names for what its packages share (internal/engine/kernel),
// so that callers keep using engine.X.
type (
	// Compute is what the engine needs from the Compute Engine API.
	Compute = kernel.Compute
	// GKE is what the engine needs from the GKE API.
	GKE = kernel.GKE
	// Cluster is what the engine needs from the cluster's API server.
	Cluster = kernel.Cluster
	// Operation is a long-running operation of a Google API.
	Operation = kernel.Operation
	// OperationState is an operation as last read.
	OperationState = kernel.OperationState
	// OperationError is an operation that ended in failure.
	OperationError = kernel.OperationError
	// RetriedCreateError is the error answered to a create sent more
	// than once.
	RetriedCreateError = kernel.RetriedCreateError
)

var (
	// ErrNotFound is returned when an object does not exist (any more).
	ErrNotFound = kernel.ErrNotFound
	// ErrNoAnswer marks a request that was never answered.
	ErrNoAnswer = kernel.ErrNoAnswer
	// SliceGVR is the Slice custom resource.
	SliceGVR = kernel.SliceGVR
)

// The Kueue API the Kueue + TAS path uses.
const (
	KueueGroup   = kernel.KueueGroup
	KueueVersion = kernel.KueueVersion
)

// KueueGVR is the Kueue resource (topologies, resourceflavors, ...).
func KueueGVR(resource string) schema.GroupVersionResource { return kernel.KueueGVR(resource) }

// NewClusterAt is the Cluster over a typed and a dynamic client of the API
// server at host, which errors then name.
func NewClusterAt(core kubernetes.Interface, dyn dynamic.Interface, host string) Cluster {
	return kernel.NewClusterAt(core, dyn, host)
}
