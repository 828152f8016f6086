package tpuslice

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

// reservationPools names the pools with a reservation affinity (those
// that can bring partitions); with block ("block" or "reservation/block")
// only those on that reservation block, when any is.
func reservationPools(pools []*container.NodePool, block string) []string {
	var all, inBlock []string
	for _, p := range pools {
		t := reservation.TargetOf(p)
		if !t.Set {
			continue
		}
		all = append(all, p.Name)
		if t.InBlock(block) {
			inBlock = append(inBlock, p.Name)
		}
	}
	if block != "" && len(inBlock) > 0 {
		return inBlock
	}
	return all
}

// resolveBlock is the physical block (gce-topology-block) that the
// selector's Block names. A Block that is the physical block of a
// partition is returned as is. Otherwise it is taken as a reservation
// block name, "block" or "reservation/block": the node pools of the bound cluster
// that target that reservation block say which partitions are in it, and
// their one physical block is returned. A name that matches no pool is
// returned as is (selection then says which blocks exist).
func (e *Slices) resolveBlock(ctx context.Context, sel PartitionSelector, parts []clusterread.Partition) (string, error) {
	if sel.Block == "" || e.reads.Name() == "" {
		return sel.Block, nil
	}
	for _, p := range parts {
		if p.Block == sel.Block {
			return sel.Block, nil
		}
	}
	// The shared list, if made within poolRelist, as pendingPools reads
	// it: resolution runs in each 250 ms round of a selection's settle
	// loop, and at plan right after policyPools listed. A pool's
	// reservation target never changes, pools this process creates or
	// deletes drop the list, and a pool made elsewhere within poolRelist
	// is found by the next round (a name that matches no pool is returned
	// as is until then).
	pools, err := e.reads.NodePoolsWithin(ctx, e.reads.Name(), e.poolRelist)
	if err != nil {
		tflog.Debug(ctx, "Cannot list node pools to resolve a reservation block name", map[string]any{"block": sel.Block, "error": kernel.APIMessage(err)})
		return sel.Block, nil
	}
	inBlock := map[string]bool{}
	for _, p := range pools {
		if reservation.TargetOf(p).InBlock(sel.Block) {
			inBlock[p.Name] = true
		}
	}
	physical := map[string]bool{}
	for _, p := range parts {
		if inBlock[p.NodePool] && p.Block != "" {
			physical[p.Block] = true
		}
	}
	switch len(physical) {
	case 0:
		return sel.Block, nil
	case 1:
		for b := range physical {
			tflog.Info(ctx, "partition_selector.block names a reservation block", map[string]any{"block": sel.Block, "physical_block": b})
			return b, nil
		}
	}
	return "", fmt.Errorf("partition_selector.block %q names reservation blocks in %d physical blocks (%s): write \"reservation/block\", "+
		"or the physical block (the cloud.google.com/gce-topology-block node label)", sel.Block, len(physical), strings.Join(slices.Sorted(maps.Keys(physical)), ", "))
}
