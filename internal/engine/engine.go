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
	// waiter polls the operations, GKE's and Compute's, of every package
	// (zero bounds: 250 ms and 5 s).
	waiter *kernel.Waiter
	// selectionSettle bounds how long a slice create waits for partitions
	// of pools made earlier in the same apply to reach the inventory.
	selectionSettle time.Duration
	// readOpts set up reads when New builds it.
	readOpts clusterread.Options
}

// Option sets an engine up at construction.
type Option func(*Engine)

// WithFirstListTimeout bounds the inventory's first lists of the nodes and
// the Slices (0: DefaultFirstListTimeout).
func WithFirstListTimeout(d time.Duration) Option {
	return func(e *Engine) { e.readOpts.FirstListTimeout = d }
}

// New returns the engine of one provider process over the APIs, bound to
// the cluster ref. clients is called when Kubernetes is first needed; a
// failure is not kept.
func New(compute Compute, gke GKE, ref ClusterRef, clients func(ctx context.Context) (Cluster, error), opts ...Option) *Engine {
	if ref.Name == "" && ref.Unnamed == nil {
		ref.Unnamed = errors.New("the provider names no GKE cluster")
	}
	e := &Engine{compute: compute, gke: gke, cluster: clients, waiter: &kernel.Waiter{}, selectionSettle: DefaultSelectionSettle}
	for _, o := range opts {
		o(e)
	}
	e.reads = clusterread.New(gke, ref, clients, e.readOpts)
	e.policies = workloadpolicy.New(compute, e.waiter.WaitCompute)
	e.res = reservation.New(compute, e.reads)
	e.kueue = kueue.New(e.reads, clients)
	e.slices = tpuslice.New(clients, e.reads, e.selectionSettle)
	e.pools = nodepool.New(gke, clients, e.reads, e.res, e.waiter)
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
