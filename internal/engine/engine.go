// Package engine is the composition root of the provider's lifecycle
// rules: New builds the concept packages over the APIs, once per provider
// configuration, and hands them out. Each owns one kind of object, and the
// provider calls it directly, with its own types:
//
//   - workloadpolicy: workload policies (Policies), and their list;
//   - nodepool: sub-block node pools and their partitions (NodePools),
//     their list, and the pools a plan makes (Planned);
//   - tpuslice: Slices, their plan, their partitions' maintenance, and
//     their list (Slices);
//   - kueue: the Kueue + TAS path (Kueue);
//   - day2: maintenance and fault reports (Day2);
//   - reservation: reservation blocks and sub-blocks (Reservations);
//   - clusterread: the reads of the cluster that all of them share, the
//     partition inventory among them (Cluster);
//   - location: the rules of location names (pure functions).
//
// They reach Compute Engine, GKE and Kubernetes only through the
// interfaces of internal/engine/kernel, which internal/clients implements
// over the Google and Kubernetes clients, so that the same engine runs
// against Google Cloud, the local sandbox and unit-test fakes. No package
// under engine imports another's caller: the engine wires them.
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

// Engine is the lifecycle of slice-stack objects of one provider
// configuration, bound to one GKE cluster, the provider's: its reads of
// that cluster (the partition inventory, the node pool list, the
// cluster's version) have one owner, shared by every concept package.
type Engine struct {
	reads    *clusterread.Reads
	res      *reservation.Reservations
	policies *workloadpolicy.Policies
	pools    *nodepool.Pools
	kueue    *kueue.Kueue
	slices   *tpuslice.Slices
	day2     *day2.Ops
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

// New returns the engine of one provider configuration over the APIs,
// bound to the cluster ref, with the budgets of opts. cluster is called
// when Kubernetes is first needed; a failure is not kept.
func New(compute kernel.Compute, gke kernel.GKE, ref clusterread.ClusterRef, cluster func(ctx context.Context) (kernel.Cluster, error), opts Options) *Engine {
	return newEngine(compute, gke, ref, cluster, opts, nil)
}

// newEngine is New over the inventory inv (nil: one built over the
// cluster's clients on first use, as New's).
func newEngine(compute kernel.Compute, gke kernel.GKE, ref clusterread.ClusterRef, cluster func(ctx context.Context) (kernel.Cluster, error), opts Options,
	inv *clusterread.Inventory) *Engine {
	if ref.Name == "" && ref.Unnamed == nil {
		ref.Unnamed = errors.New("the provider names no GKE cluster")
	}
	waiter := &kernel.Waiter{Initial: opts.PollInitial, Max: opts.PollMax}
	records := kernel.CreateRecords{Renew: opts.CreateRecordRenew, Release: opts.CreateRecordRelease}
	e := &Engine{}
	e.reads = clusterread.New(gke, ref, cluster, clusterread.Options{
		FirstListTimeout: opts.FirstListTimeout, SyncGrace: opts.SyncGrace,
		WatchFailLimit: opts.WatchFailLimit, WatchProbeEvery: opts.WatchProbeEvery,
		Inventory: inv,
	})
	e.res = reservation.New(compute, e.reads)
	e.policies = workloadpolicy.New(compute, waiter.WaitCompute)
	e.pools = nodepool.New(gke, cluster, e.reads, e.res, waiter, records)
	e.slices = tpuslice.New(cluster, e.reads, e.pools, e.res, tpuslice.Options{SelectionSettle: opts.SelectionSettle, PoolRelist: opts.PoolRelist, Records: records})
	e.kueue = kueue.New(e.reads, cluster, *waiter)
	e.day2 = day2.New(compute, waiter.WaitCompute, e.reads, e.res, cluster, e.pools, e.slices)
	return e
}

// Policies are the workload policies.
func (e *Engine) Policies() *workloadpolicy.Policies { return e.policies }

// NodePools are the sub-block node pools of the engine's cluster.
func (e *Engine) NodePools() *nodepool.Pools { return e.pools }

// Slices are the TPU slices of the engine's cluster.
func (e *Engine) Slices() *tpuslice.Slices { return e.slices }

// Kueue is the Kueue + TAS path of the engine's cluster.
func (e *Engine) Kueue() *kueue.Kueue { return e.kueue }

// Day2 are the maintenance and fault-report actions.
func (e *Engine) Day2() *day2.Ops { return e.day2 }

// Reservations reads reservation blocks and sub-blocks.
func (e *Engine) Reservations() *reservation.Reservations { return e.res }

// Cluster is the engine's shared reads of its cluster: the partition
// inventory, the node pool list, the cluster's name and version.
func (e *Engine) Cluster() *clusterread.Reads { return e.reads }

// Close ends the engine's watches of the cluster; a later read starts
// them again. A provider configured again (one serving many terraform
// commands) closes the engine of its earlier configuration.
func (e *Engine) Close() { e.reads.Stop() }
