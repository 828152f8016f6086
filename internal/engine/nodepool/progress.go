package nodepool

import "github.com/dynslice/terraform-provider-gke/internal/engine/kernel"

// Node pool statuses GKE reports that the lifecycle decides on.
const (
	StatusProvisioning = "PROVISIONING"
	StatusRunning      = "RUNNING"
	StatusReconciling  = "RECONCILING"
	StatusError        = "ERROR"
	StatusStopping     = "STOPPING"
)

// Progress is the progress of a node pool of this status, whose create
// was interrupted: an ERROR or STOPPING pool cannot finish; a
// PROVISIONING one is still being created.
func Progress(status string) kernel.Progress {
	return kernel.Progress{State: status, CanFinish: status != StatusError && status != StatusStopping, Waiting: status == StatusProvisioning}
}
