package tpuslice

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Two rules of listed partitions that no apply can change, checked at
// plan (PlanNewSlice: an error) and before a create makes a Slice
// (CreateSlice: a NotFormableError): every listed partition is of the
// slice's partition shape (a 4x4x4 ID for a 4x4x4-based slice, a 2x2x2 ID
// for a 2x2x2 sub-slice), and all are in one reservation block (the slice
// controller fails a Slice whose partitions are not, and it stays FAILED).
// Partitions not in the cluster yet (pools of the same apply) are not
// judged.

// ListedPartitionRule is the rule that listed partitions break.
type ListedPartitionRule int

const (
	// ListedOtherShape: a listed partition is of another shape.
	ListedOtherShape ListedPartitionRule = iota + 1
	// ListedTwoBlocks: the listed partitions are in more than one block.
	ListedTwoBlocks
)

// ListedPartitionsError is listed partitions that break a rule; Detail
// names them, the rule and what to write instead.
type ListedPartitionsError struct {
	Rule   ListedPartitionRule
	detail string
}

func (e *ListedPartitionsError) Error() string { return e.detail }

// Detail names the partitions, the rule and what to write instead.
func (e *ListedPartitionsError) Detail() string { return e.detail }

// checkListedRules is the ListedPartitionsError of the partitions ids of
// a slice of topology t, or nil. A cluster that cannot be read is not
// checked (the cluster access check reports it).
func (e *Slices) checkListedRules(ctx context.Context, t topology.Topology, ids []string) error {
	inv, known, _ := e.reads.Known(ctx)
	if !known || len(ids) == 0 {
		return nil
	}
	want := t.PartitionShape()
	byShape := map[string]map[string]clusterread.Partition{}
	for _, shape := range topology.PartitionShapes {
		parts, _ := inv.LivePartitionsOf(ctx, shape)
		byShape[shape] = make(map[string]clusterread.Partition, len(parts))
		for _, p := range parts {
			byShape[shape][p.ID] = p
		}
	}
	var wrong []string
	for _, id := range ids {
		if _, ok := byShape[want][id]; ok {
			continue
		}
		for _, other := range topology.PartitionShapes {
			if p, ok := byShape[other][id]; ok && other != want {
				wrong = append(wrong, fmt.Sprintf("partition %s is a %s partition (node pool %s)", id, other, p.NodePool))
				break
			}
		}
	}
	if len(wrong) > 0 {
		return &ListedPartitionsError{Rule: ListedOtherShape, detail: fmt.Sprintf("%s, but a %s %s lists %s partitions (their IDs are the "+
			"node label %s). List the partition IDs of %s partitions instead (data source gke_partitions with shape = %q), or set the "+
			"topology that those partitions form.", strings.Join(wrong, "; "), t.String(), t.Family(), want, topology.PartitionIDLabel(want), want, want)}
	}
	return e.checkOneBlock(ctx, ids, byShape[want])
}

// checkOneBlock is the ListedPartitionsError of partitions ids (of own,
// by ID) that are in more than one block, or nil. Each block is named by
// the reservation block its node pools target, when GKE lists them, and
// its gce-topology-block label.
func (e *Slices) checkOneBlock(ctx context.Context, ids []string, own map[string]clusterread.Partition) error {
	blocks := map[string][]string{}
	for _, id := range ids {
		if p, ok := own[id]; ok && p.Block != "" {
			blocks[p.Block] = append(blocks[p.Block], fmt.Sprintf("%s (node pool %s)", id, p.NodePool))
		}
	}
	if len(blocks) < 2 {
		return nil
	}
	reservationBlock := e.reservationBlocksOf(ctx, own)
	var lines []string
	for _, b := range slices.Sorted(maps.Keys(blocks)) {
		name := "block " + b
		if rb := reservationBlock[b]; rb != "" {
			name = "reservation block " + rb + " (" + wellknown.LabelTopologyBlock + " " + b + ")"
		}
		lines = append(lines, name+": "+strings.Join(blocks[b], ", "))
	}
	slices.Sort(lines)
	return &ListedPartitionsError{Rule: ListedTwoBlocks, detail: fmt.Sprintf("the listed partitions are in %d reservation blocks: %s. "+
		"A slice's partitions must all be in one reservation block, or the slice controller fails the Slice (FAILED). List partitions "+
		"of one block (data source gke_partitions, the block of each), or choose them with a partition_selector whose block names one "+
		"reservation block.", len(blocks), strings.Join(lines, "; "))}
}

// reservationBlocksOf maps each physical block of parts to the
// "reservation/block" that the node pools GKE lists there target, where
// they agree; empty otherwise.
func (e *Slices) reservationBlocksOf(ctx context.Context, parts map[string]clusterread.Partition) map[string]string {
	out := map[string]string{}
	if e.reads.Name() == "" {
		return out
	}
	pools, err := e.reads.NodePoolsWithin(ctx, e.reads.Name(), planPoolsAge)
	if err != nil {
		return out
	}
	target := map[string]string{}
	for _, p := range pools {
		if t := reservation.TargetOf(p); t.Parsed {
			target[p.Name] = t.Reservation + "/" + t.Block
		}
	}
	conflict := map[string]bool{}
	for _, p := range parts {
		rb := target[p.NodePool]
		if was, seen := out[p.Block]; rb == "" || conflict[p.Block] {
			continue
		} else if seen && was != rb {
			conflict[p.Block], out[p.Block] = true, ""
			continue
		}
		out[p.Block] = rb
	}
	return out
}
