package reservation

import (
	"context"
	"fmt"

	container "google.golang.org/api/container/v1"
)

// PlanTarget checks at plan, from Compute Engine's view of the block (no
// cluster needed), the target of a new node pool named pool of the
// engine's cluster:
// the block and the sub-block exist (else an error naming the known
// ones), and the sub-block's 4x4x4 topology is AVAILABLE. A sub-block in
// use is an error naming the pool on it and the block's available
// sub-blocks, unless that pool is pool itself (a pool made out of band,
// which the create adopts) or the cluster's pools cannot be listed (the
// create checks it again). A free sub-block with no healthy host is an
// error; one with some hosts UNHEALTHY is a warning: GKE makes the
// pool's nodes on its healthy hosts and the others once theirs are
// repaired (one whose hosts are only degraded passes: they run nodes).
//
// The block may come from the reservation cache; a target the shared read
// refuses is checked again on a read of its own.
func (r *Reservations) PlanTarget(ctx context.Context, t Target, pool string) (warning string, err error) {
	cluster := r.reads.Name()
	need := NeedSubBlock
	if t.SubBlock == "" {
		need = NeedAll
	}
	b, shared, err := r.CachedBlock(ctx, t, need)
	if err != nil {
		return "", err
	}
	if shared && !planFits(b, t) {
		if b, err = r.Block(ctx, t.Project, t.Zone, t.Reservation, t.Block); err != nil {
			return "", err
		}
	}
	available := joinOrNone(b.AvailableSubBlocks())
	if t.SubBlock == "" {
		if len(b.FreeSubBlocks()) == 0 {
			return "", fmt.Errorf("reservation block %q of reservation %q has no free sub-block: all %d are in use; "+
				"delete a node pool in it, or target another block", t.Block, t.Reservation, len(b.SubBlocks))
		}
		return "", nil
	}
	s := b.subBlock(t.SubBlock)
	if s == nil {
		return "", fmt.Errorf("reservation sub-block %q was not found in block %q of reservation %q; its sub-blocks are: %s",
			t.SubBlock, t.Block, t.Reservation, joinOrNone(subBlockNames(b)))
	}
	if s.Available() {
		return "", nil
	}
	if !s.Free() || s.TopologyState == TopologyRunning {
		var holder *container.NodePool
		if cluster != "" {
			pools, listErr := r.reads.FreshNodePools(ctx, cluster)
			if listErr != nil {
				// The pool on it may be this one, which the create
				// adopts: the create checks it again, with the pools.
				return "", nil //nolint:nilerr // a failed list is no refusal
			}
			holder = poolTargeting(pools, s.Path)
			if holder != nil && holder.Name == pool {
				return "", nil
			}
		}
		return "", fmt.Errorf("reservation sub-block %q of block %q is already in use%s (its topology is %s, %d of %d hosts run VMs); "+
			"available sub-blocks of the block: %s", t.SubBlock, t.Block, holderText(holder), topologyStateText(s), s.InUseHostCount, s.Count, available)
	}
	if s.HealthyHostCount == 0 {
		return "", fmt.Errorf("reservation sub-block %q of block %q has no healthy host (its topology is %s: every host is faulty or in maintenance); "+
			"available sub-blocks of the block: %s", t.SubBlock, t.Block, topologyStateText(s), available)
	}
	if s.Health != "UNHEALTHY" {
		// Degraded hosts run their nodes: nothing to warn of.
		return "", nil
	}
	return fmt.Sprintf("Reservation sub-block %q of block %q is %s: %d of its %d hosts are not healthy (health %s). "+
		"GKE makes the pool's nodes on the healthy hosts, and the others once their hosts are repaired. Available sub-blocks of the block: %s.",
		t.SubBlock, t.Block, topologyStateText(s), s.Count-s.HealthyHostCount, s.Count, s.Health, available), nil
}

// planFits says whether the block as read lets PlanTarget pass t.
func planFits(b *Block, t Target) bool {
	if t.SubBlock == "" {
		return len(b.FreeSubBlocks()) > 0
	}
	s := b.subBlock(t.SubBlock)
	return s != nil && s.Available()
}

// subBlock is the named sub-block of b, or nil.
func (b *Block) subBlock(name string) *SubBlock {
	for i := range b.SubBlocks {
		if b.SubBlocks[i].Name == name {
			return &b.SubBlocks[i]
		}
	}
	return nil
}

// topologyStateText is the sub-block's topology and its state, as
// Compute Engine reports them ("4x4x4 DEGRADED"), or its use when
// Compute Engine reports no topology.
func topologyStateText(s *SubBlock) string {
	switch {
	case s.TopologyState != "":
		return s.Topology + " " + s.TopologyState
	case s.Free():
		return "free"
	default:
		return "in use"
	}
}
