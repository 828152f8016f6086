package engine

import (
	"context"

	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
)

// The node pools are package nodepool's: the front forwards their
// lifecycle.

// CreateNodePool checks the target, creates the pool, reports its ID
// through created as soon as GKE accepted it, and waits for the pool's
// nodes and partition labels; a matching pool that exists is adopted
// (see nodepool.Pools.Create).
func (e *Engine) CreateNodePool(ctx context.Context, s NodePoolSpec, created func(id string)) (*NodePool, error) {
	return e.pools.Create(ctx, s, created)
}

// ResumeNodePool waits for a pool whose create was interrupted (see
// nodepool.Pools.Resume).
func (e *Engine) ResumeNodePool(ctx context.Context, s NodePoolSpec) (*NodePool, error) {
	return e.pools.Resume(ctx, s)
}

// ReadNodePool reads the pool from GKE and its partition from the nodes;
// ErrNotFound when the pool is gone (see nodepool.Pools.Read).
func (e *Engine) ReadNodePool(ctx context.Context, id string, opts ...PoolReadOption) (*NodePool, error) {
	return e.pools.Read(ctx, id, opts...)
}

// UpdateNodePool changes in place what GKE changes in place, from the
// pool as it was (from) to the pool as declared (to) (see
// nodepool.Pools.Update).
func (e *Engine) UpdateNodePool(ctx context.Context, from, to NodePoolSpec) (*NodePool, error) {
	return e.pools.Update(ctx, from, to)
}

// DeleteNodePool deletes the pool and waits; a pool already gone is not an
// error.
func (e *Engine) DeleteNodePool(ctx context.Context, id string) error {
	return e.pools.Delete(ctx, id)
}

// CanonicalNodePoolID returns the node pool ID as
// projects/P/locations/L/clusters/C/nodePools/N, whatever form (a URL) it
// was given in.
func CanonicalNodePoolID(id string) (string, error) { return nodepool.CanonicalID(id) }
