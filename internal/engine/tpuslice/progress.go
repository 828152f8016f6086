package tpuslice

import (
	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// Progress is a slice's state as an interrupted create reports it: a slice
// still forming (not reported yet, NOT_CREATED, ACTIVATING, or
// CREATION_FAILED when the controller retries it) can finish, and the next
// apply waits for it.
func Progress(state string, retryOnFailure bool) kernel.Progress {
	forming := false
	switch state {
	case "", clusterread.SliceNotCreated, clusterread.SliceActivating:
		forming = true
	case clusterread.SliceCreationFailed:
		forming = retryOnFailure
	}
	return kernel.Progress{State: state, CanFinish: forming, Waiting: forming}
}
