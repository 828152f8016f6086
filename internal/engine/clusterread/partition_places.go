package clusterread

import (
	"context"
	"slices"
	"strings"
)

// PartitionPlace is where a partition is, as grouping tells it (see
// addNode): the node pool of its first node that has one, and the block
// and physical sub-block of its first node that has a block.
type PartitionPlace struct {
	Pool, Block, SubBlock string
}

// PlacesOf finds the partitions ids of the shape on the cached nodes
// without grouping the others: a check of one slice's few partitions
// then costs a search of the shape's ID order, not a grouping of every
// node of the cluster. IDs that no node carries are left out. It waits
// for the nodes only, never for the Slices.
func (inv *Inventory) PlacesOf(ctx context.Context, shape string, ids []string) (map[string]PartitionPlace, error) {
	if err := inv.startNodes(ctx); err != nil {
		return nil, err
	}
	own := shapeIndex(shape)
	if own < 0 {
		return map[string]PartitionPlace{}, nil
	}
	all, order := inv.nodeInfosBy(shape)
	out := make(map[string]PartitionPlace, len(ids))
	for _, id := range ids {
		if id == "" {
			continue
		}
		i, found := slices.BinarySearchFunc(order, id, func(k int32, id string) int { return strings.Compare(all[k].ids[own], id) })
		if !found {
			continue
		}
		var p PartitionPlace
		for ; i < len(order) && all[order[i]].ids[own] == id; i++ {
			n := &all[order[i]]
			if p.Pool == "" {
				p.Pool = n.pool
			}
			if p.Block == "" {
				p.Block, p.SubBlock = n.block, n.subBlock
			}
		}
		out[id] = p
	}
	return out, nil
}
