package engine

import (
	"context"
	"sync"
	"time"

	container "google.golang.org/api/container/v1"

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

// clusterReads is the one owner of the engine's reads of its cluster: the
// inventory of nodes and Slices (listed once, then watched), the shared
// list of node pools (with its staleness rules), and the cluster's GKE
// version (one clusters.get per process). engine.New builds it once, bound
// to the provider's cluster; every read of a node pool, of the inventory
// and of the version goes through it.
type clusterReads struct {
	gke kernel.GKE
	// ref is the cluster the engine is bound to.
	ref ClusterRef
	// cluster returns the cluster's API clients; the inventory is built
	// over them on first use. A failure is not kept.
	cluster func(ctx context.Context) (kernel.Cluster, error)
	pools   *nodePoolCache

	mu          sync.Mutex
	inv         *clusterCache
	version     string // the bound cluster's, once read (versionRead)
	versionRead bool
}

// newClusterReads returns the reads of the cluster over the GKE API and
// the cluster's API clients; nothing is read until first use.
func newClusterReads(gke kernel.GKE, ref ClusterRef, cluster func(ctx context.Context) (kernel.Cluster, error)) *clusterReads {
	return &clusterReads{gke: gke, ref: ref, cluster: cluster, pools: newNodePoolCache()}
}

// inventory is the process-wide inventory, built on first use with
// firstListTimeout (see WithFirstListTimeout); the error is the
// cluster's clients' when they cannot be made.
func (r *clusterReads) inventory(ctx context.Context, firstListTimeout time.Duration) (*clusterCache, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inv != nil {
		return r.inv, nil
	}
	c, err := r.cluster(ctx)
	if err != nil {
		return nil, err
	}
	r.inv = newClusterCache(c)
	r.inv.FirstListTimeout = firstListTimeout
	return r.inv, nil
}

// stop ends the inventory's watches, if it was built; a later read starts
// them again.
func (r *clusterReads) stop() {
	r.mu.Lock()
	inv := r.inv
	r.mu.Unlock()
	if inv != nil {
		inv.Stop()
	}
}

// nodePools is the cluster's node pools (projects/P/locations/L/
// clusters/C) from the shared list, listed if it is older than
// poolListTTL: the reads of a plan share one nodePools.list.
func (r *clusterReads) nodePools(ctx context.Context, cluster string) ([]*container.NodePool, error) {
	return r.pools.listWithin(ctx, r.gke, cluster, poolListTTL)
}

// nodePoolsWithin is nodePools from a list made at most maxAge ago: a
// selection that waits for pools being created sees their progress, and
// the selections that wait side by side share each list.
func (r *clusterReads) nodePoolsWithin(ctx context.Context, cluster string, maxAge time.Duration) ([]*container.NodePool, error) {
	return r.pools.listWithin(ctx, r.gke, cluster, maxAge)
}

// freshNodePools lists the cluster's node pools now (one nodePools.list),
// for the reads that must see GKE's present word: a quota or a check made
// at apply, right after pools were made or changed, possibly by another
// process. The list is not shared.
func (r *clusterReads) freshNodePools(ctx context.Context, cluster string) ([]*container.NodePool, error) {
	return r.gke.ListNodePools(ctx, cluster)
}

// nodePool reads the pool named id (projects/P/locations/L/clusters/C/
// nodePools/N): from the shared list unless fresh (the read right after a
// create or update), with a nodePools.get for a pool the list lacks or a
// list that failed.
func (r *clusterReads) nodePool(ctx context.Context, id string, fresh bool) (*container.NodePool, error) {
	if !fresh {
		if p, listed := r.pools.get(ctx, r.gke, id); listed {
			return p, nil
		}
	}
	return r.gke.GetNodePool(ctx, id)
}

// poolsChanged forgets the shared list of the cluster of the pool id,
// after this process created, deleted or updated the pool.
func (r *clusterReads) poolsChanged(id string) { r.pools.invalidate(id) }

// name is the bound cluster's name (projects/P/locations/L/clusters/C),
// or "" when the provider names none.
func (r *clusterReads) name() string { return r.ref.Name }

// clusterVersion is the bound cluster's GKE version
// (currentMasterVersion), read with one clusters.get per process: the
// version gate of every slice of a plan shares it. A failed read is not
// kept.
func (r *clusterReads) clusterVersion(ctx context.Context) (string, error) {
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
