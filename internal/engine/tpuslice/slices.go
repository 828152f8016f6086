// Package tpuslice owns the TPU slices: their plan-time checks (the
// listed partitions, and the ones two slices of a plan claim, the
// selector, the device access, the version), the
// selection of their partitions, their create, wait, read, update and
// delete, the maintenance on their partitions' sub-blocks, and the list
// that `terraform query` shows. It reads the cluster through clusterread,
// a reservation's pools through reservation, and a node pool's placement
// through a nodepool.Pools it is handed (PoolReader); it never imports the
// engine.
package tpuslice

import (
	"context"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

// Slices creates, waits for, reads, changes and deletes the slices of the
// cluster one engine is bound to.
type Slices struct {
	// cluster returns the cluster's API clients (built lazily).
	cluster func(ctx context.Context) (kernel.Cluster, error)
	// reads owns the reads of the cluster that many callers share.
	reads *clusterread.Reads
	// selectionSettle bounds how long a slice create waits for partitions
	// of pools made earlier in the same apply to reach the inventory;
	// poolRelist how often such a wait lists the node pools again.
	selectionSettle, poolRelist time.Duration
	// records are the cadences of the creates' records.
	records kernel.CreateRecords
	// pools and res read the node pools and the reservation blocks of a
	// slice's partitions, for the plan-time maintenance warnings.
	pools PoolReader
	res   *reservation.Reservations
	// planned are the partitions that the slices of the running plan
	// list (claimPlanned).
	planned plannedClaims
}

// PoolReader reads a node pool as nodepool.Pools does.
type PoolReader interface {
	Read(ctx context.Context, id string, opts ...nodepool.ReadOption) (*nodepool.Pool, error)
}

// Options are the slices' budgets and cadences; a zero field takes its
// default.
type Options struct {
	// SelectionSettle bounds how long a create waits for partitions of
	// pools made earlier in the same apply (DefaultSelectionSettle).
	SelectionSettle time.Duration
	// PoolRelist bounds how often a selection that waits for pending node
	// pools lists them again (DefaultPoolRelist).
	PoolRelist time.Duration
	// Records are the cadences of the records of the slices' creates.
	Records kernel.CreateRecords
}

// New returns the slices of the cluster that reads reads, whose clients
// cluster returns, with the budgets of o. pools and res read the node
// pools and reservation blocks of a slice's partitions for the plan's
// maintenance warnings (nil: none are read).
func New(cluster func(ctx context.Context) (kernel.Cluster, error), reads *clusterread.Reads, pools PoolReader, res *reservation.Reservations, o Options) *Slices {
	e := &Slices{cluster: cluster, reads: reads, selectionSettle: o.SelectionSettle, poolRelist: o.PoolRelist, records: o.Records, pools: pools, res: res}
	if e.selectionSettle <= 0 {
		e.selectionSettle = DefaultSelectionSettle
	}
	if e.poolRelist <= 0 {
		e.poolRelist = DefaultPoolRelist
	}
	return e
}
