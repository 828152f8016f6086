package engine

// What a create that was interrupted (Ctrl-C) left, and whether the next
// apply waits for it or replaces it: one rule for node pools and slices,
// which the handlers apply without deciding on states themselves.

// Node pool statuses GKE reports that the lifecycle decides on.
const (
	PoolProvisioning = "PROVISIONING"
	PoolRunning      = "RUNNING"
	PoolReconciling  = "RECONCILING"
	PoolError        = "ERROR"
	PoolStopping     = "STOPPING"
)

// Progress is where an object whose create did not return stands.
type Progress struct {
	// State is the object's status (a pool) or state (a slice), as the
	// API reports it; empty when not reported yet.
	State string
	// CanFinish: the object may still become usable without being
	// recreated, so an interrupted create records it untainted and the next
	// apply waits for it.
	CanFinish bool
	// Waiting: it has not finished yet; the next plan shows an update that
	// waits for it, within the create timeout.
	Waiting bool
}

// PoolProgress is the progress of a node pool of this status: an ERROR or
// STOPPING pool cannot finish; a PROVISIONING one is still being created.
func PoolProgress(status string) Progress {
	return Progress{State: status, CanFinish: status != PoolError && status != PoolStopping, Waiting: status == PoolProvisioning}
}

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

// Describe is the state for a message.
func (p Progress) Describe() string {
	if p.State == "" {
		return "state not yet reported"
	}
	return p.State
}
