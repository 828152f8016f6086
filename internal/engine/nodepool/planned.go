package nodepool

import (
	"slices"
	"sync"
)

// Planned are the node pools that the running plan makes, as the plans of
// gke_subblock_node_pool note them. Terraform plans a pool before what
// refers to it (node_pools = [gke_subblock_node_pool.NAME.name]) in the
// same provider process, and plans it again during the apply, before the
// apply of either: so a gke_kueue_slicing's plan does not report a pool
// the cluster lacks when this plan makes it, and a slice's plan knows the
// blocks that new pools target. One per engine: one per configuration.
type Planned struct {
	mu    sync.Mutex
	names []string
	// blocks are the "reservation/block" the pools target.
	blocks []string
}

// Note records that the plan makes the pool name, on the reservation block
// target ("reservation/block", "" when not known).
func (p *Planned) Note(name, target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Contains(p.names, name) {
		p.names = append(p.names, name)
	}
	if target != "" && !slices.Contains(p.blocks, target) {
		p.blocks = append(p.blocks, target)
	}
}

// Names are the pools the plan makes.
func (p *Planned) Names() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.names)
}

// Blocks are the reservation blocks ("reservation/block") that the pools
// the plan makes target.
func (p *Planned) Blocks() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.blocks)
}
