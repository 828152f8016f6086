// Package engine is the one place where the lifecycle of slice-stack
// objects lives: workload policies, reservation sub-block targeting, sub-block
// node pools and their partitions. Every Terraform handler calls it; it
// talks to Compute Engine, GKE and Kubernetes only through the narrow
// interfaces of internal/engine/kernel (named here in types.go), so the
// same engine runs against Google Cloud, the local sandbox and unit-test
// fakes.
package engine

import (
	"context"
	"errors"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/day2"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
	"github.com/dynslice/terraform-provider-gke/internal/engine/workloadpolicy"
)

// Engine drives slice-stack objects to their desired state. One engine
// serves a whole provider process and is bound to one GKE cluster, the
// provider's, at construction: its reads of that cluster (the partition
// inventory, the node pool list, the cluster's version) have one owner,
// reads.
type Engine struct {
	compute Compute
	gke     GKE
	// cluster returns the cluster's API clients (built lazily: the GKE
	// cluster is looked up on first use).
	cluster func(ctx context.Context) (Cluster, error)
	// reads owns the reads of the cluster that many callers share, and
	// the cluster's name.
	reads *clusterread.Reads
	// res reads reservation blocks: the checks of many pools share one
	// read of their block (see reservation.TTL), and each block's
	// sub-block maintenance is kept for the plan-time warnings (see
	// reservation.MaintenanceTTL).
	res *reservation.Reservations
	// policies owns the workload policies.
	policies *workloadpolicy.Policies
	// pools owns the sub-block node pools.
	pools *nodepool.Pools
	// kueue owns the Kueue + TAS path.
	kueue *kueue.Kueue
	// slices owns the TPU slices.
	slices *tpuslice.Slices
	// day2 owns maintenance, fault reports and the query lists.
	day2 *day2.Ops
	// waiter polls the operations, GKE's and Compute's, of every package.
	waiter *kernel.Waiter
}

// Options are the engine's budgets and cadences; a zero field takes its
// default. The provider passes them through from its own options; tests
// pass small values.
type Options struct {
	// FirstListTimeout bounds the inventory's first lists of the nodes and
	// the Slices (DefaultFirstListTimeout, 1 min).
	FirstListTimeout time.Duration
	// SyncGrace is how long those first lists may keep failing with errors
	// that can pass (a dropped connection, a 5xx) before the reads that
	// wait for them fail (DefaultSyncGrace, 15 s).
	SyncGrace time.Duration
	// WatchFailLimit is how long a Slice wait's lists and watches may keep
	// failing, with no success between, before the wait ends with the
	// cause (DefaultWatchFailLimit, 45 s).
	WatchFailLimit time.Duration
	// WatchProbeEvery is how often a Slice wait whose watches keep failing
	// lists again, to learn whether the API server answers at all
	// (DefaultWatchProbeEvery, 5 s).
	WatchProbeEvery time.Duration
	// PollInitial and PollMax bound the interval between the polls of an
	// operation, GKE's or Compute's (DefaultPollInitial and
	// DefaultPollMax: 250 ms and 5 s).
	PollInitial, PollMax time.Duration
	// SelectionSettle bounds how long a slice create waits for the
	// partitions of pools made earlier in the same apply to reach the
	// inventory (DefaultSelectionSettle, 15 s).
	SelectionSettle time.Duration
	// PoolRelist bounds how often such a wait lists the cluster's node
	// pools again (DefaultPoolRelist, 1 s).
	PoolRelist time.Duration
	// CreateRecordRenew is how often a create renews its record
	// (DefaultCreateRecordRenew, 10 s); CreateRecordRelease bounds the
	// delete of the record when the create ends (DefaultCreateRecordRelease,
	// 10 s).
	CreateRecordRenew, CreateRecordRelease time.Duration
}

// The defaults of Options.
const (
	DefaultFirstListTimeout    = clusterread.DefaultFirstListTimeout
	DefaultSyncGrace           = clusterread.DefaultSyncGrace
	DefaultWatchFailLimit      = clusterread.DefaultWatchFailLimit
	DefaultWatchProbeEvery     = clusterread.DefaultWatchProbeEvery
	DefaultPollInitial         = kernel.DefaultPollInitial
	DefaultPollMax             = kernel.DefaultPollMax
	DefaultSelectionSettle     = tpuslice.DefaultSelectionSettle
	DefaultPoolRelist          = tpuslice.DefaultPoolRelist
	DefaultCreateRecordRenew   = kernel.DefaultCreateRecordRenew
	DefaultCreateRecordRelease = kernel.DefaultCreateRecordRelease
)

// New returns the engine of one provider process over the APIs, bound to
// the cluster ref, with the budgets of opts. clients is called when
// Kubernetes is first needed; a failure is not kept.
func New(compute Compute, gke GKE, ref ClusterRef, clients func(ctx context.Context) (Cluster, error), opts Options) *Engine {
	return newEngine(compute, gke, ref, clients, opts, nil)
}

// newEngine is New over the inventory inv (nil: one built over the
// cluster's clients on first use, as New's).
func newEngine(compute Compute, gke GKE, ref ClusterRef, clients func(ctx context.Context) (Cluster, error), opts Options,
	inv *clusterread.Inventory) *Engine {
	if ref.Name == "" && ref.Unnamed == nil {
		ref.Unnamed = errors.New("the provider names no GKE cluster")
	}
	e := &Engine{compute: compute, gke: gke, cluster: clients, waiter: &kernel.Waiter{Initial: opts.PollInitial, Max: opts.PollMax}}
	records := kernel.CreateRecords{Renew: opts.CreateRecordRenew, Release: opts.CreateRecordRelease}
	e.reads = clusterread.New(gke, ref, clients, clusterread.Options{
		FirstListTimeout: opts.FirstListTimeout, SyncGrace: opts.SyncGrace,
		WatchFailLimit: opts.WatchFailLimit, WatchProbeEvery: opts.WatchProbeEvery,
		Inventory: inv,
	})
	e.policies = workloadpolicy.New(compute, e.waiter.WaitCompute)
	e.res = reservation.New(compute, e.reads)
	e.kueue = kueue.New(e.reads, clients)
	e.slices = tpuslice.New(clients, e.reads, tpuslice.Options{SelectionSettle: opts.SelectionSettle, PoolRelist: opts.PoolRelist, Records: records})
	e.pools = nodepool.New(gke, clients, e.reads, e.res, e.waiter, records)
	e.day2 = day2.New(compute, e.waiter.WaitCompute, e.reads, e.res, clients, day2Front{e})
	return e
}

// ListPartitions returns the cluster's partitions that pass f, sorted by
// ID, from the process-wide inventory.
func (e *Engine) ListPartitions(ctx context.Context, f PartitionFilter) ([]Partition, error) {
	return e.reads.ListPartitions(ctx, f)
}

// Close ends the engine's watches of the cluster; a later read starts
// them again. A provider configured again (one serving many terraform
// commands) closes the engine of its earlier configuration.
func (e *Engine) Close() { e.reads.Stop() }
