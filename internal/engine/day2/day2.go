// Package day2 owns the day-2 actions on what runs: starting the
// maintenance of reservation sub-blocks (draining them first: their
// slices, then their node pools), reporting faulty hardware, the
// plan-time maintenance warnings of a slice's partitions, and the lists
// that `terraform query` shows (workload policies, Slices). It deletes
// slices and node pools, and reads a pool's block, through Front, which
// the engine implements, so that it never imports the engine.
package day2

import (
	"context"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

// Front is what the day-2 actions need of the operations the engine owns.
type Front interface {
	// DeleteSlice deletes the Slice name and waits until it is gone. A
	// Slice that Kueue owns is left to Kueue: kueueWorkload names its
	// workload.
	DeleteSlice(ctx context.Context, name string) (kueueWorkload string, err error)
	// DeleteNodePool deletes the node pool id and waits for GKE.
	DeleteNodePool(ctx context.Context, id string) error
	// ReadNodePool reads the node pool id as the engine reports it (its
	// Reservation is empty when it targets none).
	ReadNodePool(ctx context.Context, id string) (*nodepool.Pool, error)
	// AccessOf is the device access the partitions ids of a slice of
	// topology topo offer.
	AccessOf(ctx context.Context, topo string, ids []string) clusterread.DeviceAccess
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
	front   Front
}

// New returns the day-2 actions over the Compute API (waiting for its
// operations with wait), the engine's cluster reads, its reservation
// reads, its cluster's clients, and the operations of front.
func New(compute kernel.Compute, wait WaitFunc, reads *clusterread.Reads, res *reservation.Reservations,
	cluster func(ctx context.Context) (kernel.Cluster, error), front Front) *Ops {
	return &Ops{compute: compute, wait: wait, reads: reads, res: res, cluster: cluster, front: front}
}
