package tpuslice

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The rule of partition_selector.block: it names a reservation block
// ("block" or "reservation/block") that node pools of the cluster target,
// or the physical block (gce-topology-block) of partitions. Checked at
// plan (PlanNewSlice: an error) when the cluster and its pools can be
// read; pools that resources of the same plan make count
// (NewSlicePlan.PlannedBlocks).

// planPoolsAge bounds the age of the shared node pool list that the plan
// checks of listed partitions and selector blocks read: one list serves
// the plan of many slices, and pools this process creates or deletes
// drop it.
const planPoolsAge = 5 * time.Second

// SelectorBlockError is a partition_selector.block that no node pool
// targets and no partition is in.
type SelectorBlockError struct {
	Block, Cluster string
	// Targeted are the reservation blocks ("reservation/block") that the
	// cluster's node pools target, sorted.
	Targeted []string
}

func (e *SelectorBlockError) Error() string {
	pools := "No node pool of the cluster or of this plan targets a reservation block yet."
	if len(e.Targeted) > 0 {
		pools = "The node pools of the cluster and of this plan target " + strings.Join(e.Targeted, ", ") + ": write one of those " +
			"(\"block\" or \"reservation/block\")."
	}
	return fmt.Sprintf("partition_selector.block %q names no reservation block that a node pool of cluster %s targets, and no "+
		"physical block (the %s label) of its nodes: no partition could be chosen from it. %s To select from pools that this "+
		"configuration makes, make them on that block (gke_subblock_node_pool with reservation_block = %q) and name them in "+
		"the slice's depends_on (or partition_selector.node_pools), so that Terraform plans and makes them first.",
		e.Block, e.Cluster, wellknown.LabelTopologyBlock, pools, e.Block)
}

// checkSelectorBlock is the SelectorBlockError of sel's Block, or nil;
// nil too when the cluster or its pools cannot be read.
func (e *Slices) checkSelectorBlock(ctx context.Context, sel PartitionSelector, planned []string) error {
	cluster := e.reads.Name()
	if sel.Block == "" || cluster == "" {
		return nil
	}
	parts, known, _ := e.knownPartitions(ctx)
	if !known {
		return nil
	}
	for _, p := range parts {
		if p.Block == sel.Block {
			return nil
		}
	}
	pools, err := e.reads.NodePoolsWithin(ctx, cluster, planPoolsAge)
	if err != nil {
		return nil //nolint:nilerr // pools not read: the apply's selection says what it finds
	}
	var targeted []string
	for _, p := range pools {
		t := reservation.TargetOf(p)
		if t.InBlock(sel.Block) {
			return nil
		}
		if t.Parsed && !slices.Contains(targeted, t.Reservation+"/"+t.Block) {
			targeted = append(targeted, t.Reservation+"/"+t.Block)
		}
	}
	for _, rb := range planned {
		res, block, _ := strings.Cut(rb, "/")
		if (reservation.PoolTarget{Parsed: true, Reservation: res, Block: block}).InBlock(sel.Block) {
			return nil
		}
		if !slices.Contains(targeted, rb) {
			targeted = append(targeted, rb)
		}
	}
	slices.Sort(targeted)
	return &SelectorBlockError{Block: sel.Block, Cluster: cluster, Targeted: targeted}
}
