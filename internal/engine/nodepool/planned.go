package nodepool

import (
	"fmt"
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
	// subBlocks are the pools that claim each sub-block, by its
	// reservation path (ClaimSubBlock).
	subBlocks map[string]string
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

// SubBlockClaimedError is a node pool of the plan aimed at a reservation
// sub-block that another pool of the same plan targets: both would reach
// the apply, and GKE would refuse whichever came second.
type SubBlockClaimedError struct {
	// Pool is the pool planned second, Other the one that claimed the
	// sub-block (its reservation path) first.
	Pool, Other, SubBlock string
}

func (e *SubBlockClaimedError) Error() string {
	return fmt.Sprintf("node pools %s and %s of this configuration both target reservation sub-block %s; a sub-block takes one node pool. "+
		"Aim one of them at another sub-block (data source gke_reservation_sub_blocks lists the available ones)", e.Other, e.Pool, e.SubBlock)
}

// ClaimSubBlock notes that the pool the plan makes (new, or replacing one
// on another sub-block) targets the sub-block at path, in place of what
// its earlier plan claimed, and returns a SubBlockClaimedError, noting
// nothing, when another pool of the plan claimed it first.
func (p *Planned) ClaimSubBlock(path, pool string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if other, ok := p.subBlocks[path]; ok && other != pool {
		return &SubBlockClaimedError{Pool: pool, Other: other, SubBlock: path}
	}
	if p.subBlocks == nil {
		p.subBlocks = map[string]string{}
	}
	for at, by := range p.subBlocks {
		if by == pool {
			delete(p.subBlocks, at)
		}
	}
	p.subBlocks[path] = pool
	return nil
}
