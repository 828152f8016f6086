package day2

import (
	"context"
	"fmt"
	"sort"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// subBlockUses finds what runs on the sub-blocks: the node pool whose
// nodes are there (their cloud.google.com/gce-topology-subblock label)
// and the slices that hold partitions of those nodes.
func (o *Ops) subBlockUses(ctx context.Context, project, zone, reservation, block string, subs []reservation.SubBlockMaintenance) ([]SubBlockUse, error) {
	b, err := o.res.BlockWithPools(ctx, "", project, zone, reservation, block) // the nodes tell the slices too
	if err != nil {
		return nil, err
	}
	byPhysical := map[string]*SubBlockUse{}
	var uses []*SubBlockUse
	for _, m := range subs {
		u := &SubBlockUse{SubBlock: m.SubBlock}
		for _, s := range b.SubBlocks {
			if s.Name == m.SubBlock {
				u.NodePool = s.NodePool
				byPhysical[s.PhysicalSubBlock] = u
			}
		}
		uses = append(uses, u)
	}
	slices := map[*SubBlockUse]map[string]bool{}
	for _, shape := range topology.PartitionShapes {
		parts, err := o.reads.ListPartitions(ctx, clusterread.PartitionFilter{Shape: shape})
		if err != nil {
			return nil, fmt.Errorf("listing the partitions to find the slices on %s/%s: %w", reservation, block, err)
		}
		for _, p := range parts {
			u := byPhysical[p.SubBlock]
			if u == nil || p.Slice == "" {
				continue
			}
			if slices[u] == nil {
				slices[u] = map[string]bool{}
			}
			slices[u][p.Slice] = true
			if u.NodePool == "" {
				u.NodePool = p.NodePool
			}
		}
	}
	var out []SubBlockUse
	for _, u := range uses {
		for s := range slices[u] {
			u.Slices = append(u.Slices, s)
		}
		sort.Strings(u.Slices)
		if u.InUse() {
			out = append(out, *u)
		}
	}
	return out, nil
}

// drain deletes the slices on the sub-blocks, then their node pools.
func (o *Ops) drain(ctx context.Context, cluster string, uses []SubBlockUse, progress ProgressFunc, res *MaintenanceResult) error {
	seen := map[string]bool{}
	for _, u := range uses {
		for _, s := range u.Slices {
			if seen[s] {
				continue
			}
			seen[s] = true
			progress(fmt.Sprintf("Drain: deleting slice %s (on %s)", s, u.SubBlock))
			deleted, err := o.slices.DeleteSlice(ctx, s, false)
			if err != nil {
				return fmt.Errorf("draining %s: deleting slice %s: %w", u.SubBlock, s, err)
			}
			if deleted.KueueWorkload != "" {
				res.KeptSlices = append(res.KeptSlices, s)
				continue
			}
			res.DeletedSlices = append(res.DeletedSlices, s)
		}
	}
	for _, u := range uses {
		if u.NodePool == "" || seen["pool "+u.NodePool] {
			continue
		}
		seen["pool "+u.NodePool] = true
		if cluster == "" {
			return fmt.Errorf("draining %s: the provider names no cluster, so node pool %s cannot be deleted", u.SubBlock, u.NodePool)
		}
		id := cluster + "/nodePools/" + u.NodePool
		progress(fmt.Sprintf("Drain: deleting node pool %s (on %s) and waiting for GKE", u.NodePool, u.SubBlock))
		if err := o.pools.Delete(ctx, id); err != nil {
			return fmt.Errorf("draining %s: %w", u.SubBlock, err)
		}
		tflog.Info(ctx, "Drained a sub-block for maintenance", map[string]any{"sub_block": u.SubBlock, "node_pool": id})
		res.DeletedNodePools = append(res.DeletedNodePools, u.NodePool)
	}
	return nil
}
