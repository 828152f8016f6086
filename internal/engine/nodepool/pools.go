// Package nodepool owns the sub-block node pools: their create (checking the
// reservation target, recording the create, adopting a pool that a killed apply
// left, and waiting for the operation, the nodes and the partition), resume, read
// (State: a GKE pool as the engine reports it), in-place update and delete, an
// interrupted create's Progress, the list that `terraform query` shows, and the
// pools the running plan makes (Planned). It reads the cluster through
// clusterread and the reservation blocks through reservation, and waits for GKE's
// operations through kernel.Waiter; it imports nothing above it (the slices, day2,
// the front).
package nodepool

import (
	"context"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

// Pools runs the node pools of one engine.
type Pools struct {
	gke kernel.GKE
	// cluster returns the cluster's API clients.
	cluster func(ctx context.Context) (kernel.Cluster, error)
	// reads owns the reads of the cluster (the node pool list, the
	// inventory) that the pools share with the rest of the engine.
	reads *clusterread.Reads
	// res reads the reservation blocks the pools target.
	res *reservation.Reservations
	// waiter polls GKE's operations.
	waiter *kernel.Waiter
	// records are the cadences of the creates' records.
	records kernel.CreateRecords
	// planned are the pools the running plan makes.
	planned Planned
}

// New returns the node pools over the GKE API, the cluster's clients, the
// engine's cluster reads and reservation reads, waiting for operations
// with waiter and recording creates with records.
func New(gke kernel.GKE, cluster func(ctx context.Context) (kernel.Cluster, error), reads *clusterread.Reads,
	res *reservation.Reservations, waiter *kernel.Waiter, records kernel.CreateRecords) *Pools {
	return &Pools{gke: gke, cluster: cluster, reads: reads, res: res, waiter: waiter, records: records}
}

// Planned are the pools that the running plan makes.
func (ps *Pools) Planned() *Planned { return &ps.planned }
