// Package day2 owns the day-2 actions on what runs: starting the
// maintenance of reservation sub-blocks (draining them first: their
// slices, then their node pools) and reporting faulty hardware. It drains
// through the node pools and slices it is handed (Pools, Slices), which
// nodepool.Pools and tpuslice.Slices are: it never imports the engine.
package day2

import (
	"context"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
)

// Pools is what a drain uses of the node pools (nodepool.Pools).
type Pools interface {
	// Delete deletes the node pool id and waits for GKE.
	Delete(ctx context.Context, id string) error
}

// Slices is what a drain uses of the slices (tpuslice.Slices).
type Slices interface {
	// DeleteSlice deletes the Slice name and waits until it is gone; a
	// Slice that Kueue owns is left to Kueue.
	DeleteSlice(ctx context.Context, name string, forceFinalizer bool) (tpuslice.SliceDeleted, error)
}

// WaitFunc waits for the Compute operation op, which a call answered
// with err.
type WaitFunc func(ctx context.Context, op kernel.Operation, err error) error

// Ops runs the day-2 actions of one engine.
type Ops struct {
	compute kernel.Compute
	wait    WaitFunc
	reads   *clusterread.Reads
	res     *reservation.Reservations
	cluster func(ctx context.Context) (kernel.Cluster, error)
	pools   Pools
	slices  Slices
}

// New returns the day-2 actions over the Compute API (waiting for its
// operations with wait), the engine's cluster reads, its reservation
// reads, its cluster's clients, and the node pools and slices it drains.
func New(compute kernel.Compute, wait WaitFunc, reads *clusterread.Reads, res *reservation.Reservations,
	cluster func(ctx context.Context) (kernel.Cluster, error), pools Pools, slices Slices) *Ops {
	return &Ops{compute: compute, wait: wait, reads: reads, res: res, cluster: cluster, pools: pools, slices: slices}
}
