package provider

import (
	"slices"
	"sync"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
)

// The node pools that gke_subblock_node_pool resources of the running
// plan make, by provider instance: gke_kueue_slicing reports at plan a
// pool of node_pools that the cluster lacks unless it is one of them.
// Terraform plans a pool before a gke_kueue_slicing that refers to it
// (node_pools = [gke_subblock_node_pool.NAME.name]), in the same provider
// process, and plans it again during the apply, before the apply of
// either.
var plannedPools sync.Map // *clients.Set → *poolNames

type poolNames struct {
	mu    sync.Mutex
	names []string
	// blocks are the "reservation/block" the pools target.
	blocks []string
}

// notePlannedPool records that this plan makes the pool name in the
// provider's cluster, on the reservation block target
// ("reservation/block", "" when not known).
func notePlannedPool(set *clients.Set, name, target string) {
	v, _ := plannedPools.LoadOrStore(set, &poolNames{})
	p, _ := v.(*poolNames)
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.names, name) {
		p.names = append(p.names, name)
	}
	if target != "" && !slices.Contains(p.blocks, target) {
		p.blocks = append(p.blocks, target)
	}
}

// plannedPoolNames are the pools that this plan makes in the provider's
// cluster.
func plannedPoolNames(set *clients.Set) []string {
	v, ok := plannedPools.Load(set)
	if !ok {
		return nil
	}
	p, _ := v.(*poolNames)
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.names)
}

// plannedPoolBlocks are the reservation blocks ("reservation/block") that
// pools this plan makes in the provider's cluster target.
func plannedPoolBlocks(set *clients.Set) []string {
	v, ok := plannedPools.Load(set)
	if !ok {
		return nil
	}
	p, _ := v.(*poolNames)
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.blocks)
}
