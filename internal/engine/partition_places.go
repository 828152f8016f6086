package engine

import (
	"context"
	"slices"
	"strings"
)

// partitionPlace is where a partition is, as grouping tells it (see
// addNode): the node pool of its first node that has one, and the block
// and physical sub-block of its first node that has a block.
type partitionPlace struct {
	pool, block, subBlock string
}

// placesOf finds the partitions ids of the shape on the cached nodes
// without grouping the others: a check of one slice's few partitions
// then costs a search of the shape's ID order, not a grouping of every
// node of the cluster. IDs that no node carries are left out. It waits
// for the nodes only, never for the Slices.
func (inv *clusterCache) placesOf(ctx context.Context, shape string, ids []string) (map[string]partitionPlace, error) {
	if err := inv.startNodes(ctx); err != nil {
		return nil, err
	}
	own := shapeIndex(shape)
	if own < 0 {
		return map[string]partitionPlace{}, nil
	}
	all, order := inv.nodeInfosBy(shape)
	out := make(map[string]partitionPlace, len(ids))
	for _, id := range ids {
		if id == "" {
			continue
		}
		i, found := slices.BinarySearchFunc(order, id, func(k int32, id string) int { return strings.Compare(all[k].ids[own], id) })
		if !found {
			continue
		}
		var p partitionPlace
		for ; i < len(order) && all[order[i]].ids[own] == id; i++ {
			n := &all[order[i]]
			if p.pool == "" {
				p.pool = n.pool
			}
			if p.block == "" {
				p.block, p.subBlock = n.block, n.subBlock
			}
		}
		out[id] = p
	}
	return out, nil
}
