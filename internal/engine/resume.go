package engine

import (
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
)

// What a create that was interrupted (Ctrl-C) left, and whether the next
// apply waits for it or replaces it: one rule for node pools and slices,
// which the handlers apply without deciding on states themselves.

// Node pool statuses GKE reports that the lifecycle decides on
// (nodepool's).
const (
	PoolProvisioning = nodepool.StatusProvisioning
	PoolRunning      = nodepool.StatusRunning
	PoolReconciling  = nodepool.StatusReconciling
	PoolError        = nodepool.StatusError
	PoolStopping     = nodepool.StatusStopping
)

// Progress is where an object whose create did not return stands
// (kernel's).
type Progress = kernel.Progress

// PoolProgress is the progress of a node pool of this status (see
// nodepool.Progress).
func PoolProgress(status string) Progress { return nodepool.Progress(status) }

// SliceProgress is the progress of a slice in this state: it may still
// become ACTIVE while the controller has not answered, is activating, or
// (with retry-on-failure) retries after SliceCreationFailed.
func SliceProgress(state string, retryOnFailure bool) Progress {
	forming := false
	switch state {
	case "", SliceNotCreated, SliceActivating:
		forming = true
	case SliceCreationFailed:
		forming = retryOnFailure
	}
	return Progress{State: state, CanFinish: forming, Waiting: forming}
}
