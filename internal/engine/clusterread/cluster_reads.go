// Package clusterread is the one owner of the engine's reads of its
// cluster: the inventory of nodes and Slices (listed once, then watched),
// their grouping into partitions and the claims of this process's
// selections on them, the shared list of node pools, the cluster's
// identity and GKE version, the Slice object model, the waits on a Slice
// (which follow the inventory's one watch of the Slices: slice_wait.go),
// on a Kueue object's deletion (object_watch.go) and on a pool's nodes
// (node_watch.go). engine.New builds one Reads, bound to the
// provider's cluster, and every package above reads the cluster through
// it. Of the engine it imports only internal/engine/kernel.
package clusterread

import (
	"context"
	"sync"
	"time"

	container "google.golang.org/api/container/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// ClusterRef is the GKE cluster an engine is bound to: Name is
// projects/P/locations/L/clusters/C, or empty with Unnamed saying why the
// provider names no cluster (one given a kubernetes block only). Its node
// pools resolve selectors and reservation block names, its version gates
// topologies, and its pools make a Kueue quota.
type ClusterRef struct {
	Name    string
	Unnamed error
}

// Reads is the one owner of the engine's reads of its cluster: the
// inventory of nodes and Slices (listed once, then watched), the shared
// list of node pools (with its staleness rules), and the cluster's GKE
// version (one clusters.get per process). engine.New builds it once, bound
// to the provider's cluster; every read of a node pool, of the inventory
// and of the version goes through it.
type Reads struct {
	gke kernel.GKE
	// ref is the cluster the engine is bound to.
	ref ClusterRef
	// cluster returns the cluster's API clients; the inventory is built
	// over them on first use. A failure is not kept.
	cluster func(ctx context.Context) (kernel.Cluster, error)
	// opts bound the inventory's first lists and the Slice waits.
	opts  Options
	pools *nodePoolCache

	mu          sync.Mutex
	inv         *Inventory
	version     string // the bound cluster's, once read (versionRead)
	versionRead bool

	reportMu sync.Mutex
	// unhealthyReported is set once unhealthy partitions were summarised.
	unhealthyReported bool
}

// Options set the reads up at construction: the budgets of their waits
// (a zero field takes its default) and, for tests and benchmarks, a
// ready inventory.
type Options struct {
	// FirstListTimeout bounds the inventory's first lists of the nodes and
	// the Slices (DefaultFirstListTimeout).
	FirstListTimeout time.Duration
	// SyncGrace is how long a first list may keep failing with errors
	// that can pass before the reads that wait for it fail
	// (DefaultSyncGrace).
	SyncGrace time.Duration
	// WatchFailLimit is how long a Slice wait's lists and watches may keep
	// failing, with no success between, before the wait ends
	// (DefaultWatchFailLimit).
	WatchFailLimit time.Duration
	// WatchProbeEvery is how often a Slice wait whose watches keep failing
	// lists again (DefaultWatchProbeEvery).
	WatchProbeEvery time.Duration
	// Inventory, when set, is the inventory (see Fixed), in place of one
	// built over the cluster's clients on first use.
	Inventory *Inventory
}

// The options' bounds, their defaults for zero fields.
func (o Options) firstListTimeout() time.Duration {
	return orDefault(o.FirstListTimeout, DefaultFirstListTimeout)
}

func (o Options) syncGrace() time.Duration {
	return orDefault(o.SyncGrace, DefaultSyncGrace)
}

func (o Options) watchFailLimit() time.Duration {
	return orDefault(o.WatchFailLimit, DefaultWatchFailLimit)
}

func (o Options) watchProbeEvery() time.Duration {
	return orDefault(o.WatchProbeEvery, DefaultWatchProbeEvery)
}

// orDefault is d, or def when d is not positive.
func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// New returns the reads of the cluster ref over the GKE API
// and the cluster's API clients; nothing is read until first use.
func New(gke kernel.GKE, ref ClusterRef, cluster func(ctx context.Context) (kernel.Cluster, error), o Options) *Reads {
	return &Reads{gke: gke, ref: ref, cluster: cluster, opts: o, pools: newNodePoolCache(), inv: o.Inventory}
}

// Inventory is the process-wide inventory, built on first use; the error
// is the cluster's clients' when they cannot be made.
func (r *Reads) Inventory(ctx context.Context) (*Inventory, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inv != nil {
		return r.inv, nil
	}
	c, err := r.cluster(ctx)
	if err != nil {
		return nil, err
	}
	r.inv = NewInventory(c, r.opts)
	return r.inv, nil
}

// Nodes lists the nodes that have the labels ("" values: the label is
// set), from the inventory.
func (r *Reads) Nodes(ctx context.Context, labels map[string]string) ([]*corev1.Node, error) {
	inv, err := r.Inventory(ctx)
	if err != nil {
		return nil, err
	}
	return inv.Nodes(ctx, labels)
}

// Start starts the inventory's first lists of the nodes and Slices
// without waiting for them. A failure is left to the read that needs the
// inventory, which reports it.
func (r *Reads) Start(ctx context.Context) {
	if inv, err := r.Inventory(ctx); err == nil {
		inv.Start()
	}
}

// Stop ends the inventory's watches, if it was built; a later read starts
// them again.
func (r *Reads) Stop() {
	r.mu.Lock()
	inv := r.inv
	r.mu.Unlock()
	if inv != nil {
		inv.Stop()
	}
}

// NodePools is the cluster's node pools (projects/P/locations/L/
// clusters/C) from the shared list, listed if it is older than
// poolListTTL: the reads of a plan share one nodePools.list.
func (r *Reads) NodePools(ctx context.Context, cluster string) ([]*container.NodePool, error) {
	return r.pools.listWithin(ctx, r.gke, cluster, poolListTTL)
}

// NodePoolsWithin is nodePools from a list made at most maxAge ago: a
// selection that waits for pools being created sees their progress, and
// the selections that wait side by side share each list.
func (r *Reads) NodePoolsWithin(ctx context.Context, cluster string, maxAge time.Duration) ([]*container.NodePool, error) {
	return r.pools.listWithin(ctx, r.gke, cluster, maxAge)
}

// FreshNodePools lists the cluster's node pools now (one nodePools.list),
// for the reads that must see GKE's present word: a quota or a check made
// at apply, right after pools were made or changed, possibly by another
// process. The list is not shared.
func (r *Reads) FreshNodePools(ctx context.Context, cluster string) ([]*container.NodePool, error) {
	return r.gke.ListNodePools(ctx, cluster)
}

// NodePool reads the pool named id (projects/P/locations/L/clusters/C/
// nodePools/N): from the shared list unless fresh (the read right after a
// create or update), with a nodePools.get for a pool the list lacks or a
// list that failed.
func (r *Reads) NodePool(ctx context.Context, id string, fresh bool) (*container.NodePool, error) {
	if !fresh {
		if p, listed := r.pools.get(ctx, r.gke, id); listed {
			return p, nil
		}
	}
	return r.gke.GetNodePool(ctx, id)
}

// PoolsChanged forgets the shared list of the cluster of the pool id,
// after this process created, deleted or updated the pool.
func (r *Reads) PoolsChanged(id string) { r.pools.invalidate(id) }

// Ref is the cluster the reads are bound to.
func (r *Reads) Ref() ClusterRef { return r.ref }

// Name is the bound cluster's name (projects/P/locations/L/clusters/C),
// or "" when the provider names none.
func (r *Reads) Name() string { return r.ref.Name }

// ClusterVersion is the bound cluster's GKE version
// (currentMasterVersion), read with one clusters.get per process: the
// version gate of every slice of a plan shares it. A failed read is not
// kept.
func (r *Reads) ClusterVersion(ctx context.Context) (string, error) {
	r.mu.Lock()
	v, read := r.version, r.versionRead
	r.mu.Unlock()
	if read {
		return v, nil
	}
	c, err := r.gke.GetCluster(ctx, r.ref.Name)
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.version, r.versionRead = c.CurrentMasterVersion, true
	return c.CurrentMasterVersion, nil
}
