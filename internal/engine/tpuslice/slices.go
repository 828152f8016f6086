// Package tpuslice owns the TPU slices: their plan-time checks (the
// listed partitions, the selector, the device access, the version), the
// selection of their partitions, their create, wait, read, update and
// delete. It reads the cluster through clusterread and a reservation's
// pools through reservation; it imports neither the front nor its sibling
// nodepool.
package tpuslice

import (
	"context"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// Slices creates, waits for, reads, changes and deletes the slices of the
// cluster one engine is bound to.
type Slices struct {
	// cluster returns the cluster's API clients (built lazily).
	cluster func(ctx context.Context) (kernel.Cluster, error)
	// reads owns the reads of the cluster that many callers share.
	reads *clusterread.Reads
	// selectionSettle bounds how long a slice create waits for partitions
	// of pools made earlier in the same apply to reach the inventory.
	selectionSettle time.Duration
}

// New returns the slices of the cluster that reads reads, whose clients
// cluster returns. settle bounds how long a create waits for partitions
// of pools made earlier in the same apply (DefaultSelectionSettle; 0
// does not wait).
func New(cluster func(ctx context.Context) (kernel.Cluster, error), reads *clusterread.Reads, settle time.Duration) *Slices {
	return &Slices{cluster: cluster, reads: reads, selectionSettle: settle}
}
