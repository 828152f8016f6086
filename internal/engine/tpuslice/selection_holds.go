package tpuslice

import (
	"context"
	"fmt"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// SelectorVerdict says whether the partitions a slice has stand for the
// choice its partition selector would make: after an import, or when a
// configuration moves from listing partitions to selecting them.
type SelectorVerdict int

// The verdicts of CheckSelectorHolds.
const (
	// SelectorHolds: every partition is of the topology's shape and inside
	// the selector's scope (its node pools and block), and no other slice
	// holds it. Health is not part of it: a running slice whose partition
	// became DEGRADED is not replaced for that, as with a selected one.
	SelectorHolds SelectorVerdict = iota
	// SelectorBroken: some partition is outside the selector's scope.
	SelectorBroken
	// SelectorUnknown: it could not be checked now (the cluster cannot be
	// read, or a value is not known until apply).
	SelectorUnknown
)

// SelectorCheck is CheckSelectorHolds' verdict, and why.
type SelectorCheck struct {
	Verdict SelectorVerdict
	// Reason says which partition is outside the scope, or why the check
	// could not run; empty when the selector holds.
	Reason string
}

// CheckSelectorHolds says whether the partitions ids of the slice name of
// topology topo satisfy the selector sel, so that they can stand for its
// choice instead of the slice being replaced to choose again.
func (e *Slices) CheckSelectorHolds(ctx context.Context, name, topo string, sel PartitionSelector, ids []string) SelectorCheck {
	broken := func(format string, args ...any) SelectorCheck {
		return SelectorCheck{Verdict: SelectorBroken, Reason: fmt.Sprintf(format, args...)}
	}
	if err := sel.Check(); err != nil {
		return broken("%s", err)
	}
	t, err := topology.ParseTPU7x(topo)
	if err != nil {
		return broken("%s", err)
	}
	if len(ids) != t.Partitions() {
		return broken("slice %s has %d partition(s); topology %s takes %d", name, len(ids), topo, t.Partitions())
	}
	parts, known, err := e.knownPartitions(ctx)
	if !known {
		why := "the cluster's partitions cannot be read now"
		if err != nil {
			why += ": " + err.Error()
		}
		return SelectorCheck{Verdict: SelectorUnknown, Reason: why}
	}
	byPolicy := sel.WorkloadPolicy != ""
	if sel, err = e.policyPools(ctx, sel); err != nil {
		return SelectorCheck{Verdict: SelectorUnknown, Reason: err.Error()}
	}
	if byPolicy && len(sel.NodePools) == 0 {
		return broken("%s", noPolicyPools(e.reads.Name(), sel))
	}
	block, err := e.resolveBlock(ctx, sel, parts)
	if err != nil {
		return SelectorCheck{Verdict: SelectorUnknown, Reason: err.Error()}
	}
	shape := t.PartitionShape()
	byID := map[string]clusterread.Partition{}
	for _, p := range parts {
		if p.Shape == shape {
			byID[p.ID] = p
		}
	}
	pools := clusterread.SetOf(sel.NodePools)
	for _, id := range ids {
		p, ok := byID[id]
		switch {
		case !ok:
			return broken("partition %s is not a %s partition of the cluster now", id, shape)
		case len(pools) > 0 && !pools[p.NodePool] && byPolicy:
			return broken("partition %s is in node pool %s, which workload policy %s does not place (partition_selector.workload_policy)", id, p.NodePool, sel.WorkloadPolicy)
		case len(pools) > 0 && !pools[p.NodePool]:
			return broken("partition %s is in node pool %s, which partition_selector.node_pools does not name", id, p.NodePool)
		case block != "" && p.Block != block:
			return broken("partition %s is in block %s, not in partition_selector.block %s", id, p.Block, sel.Block)
		case p.Slice != "" && p.Slice != name:
			return broken("partition %s is held by %s", id, p.HeldBy())
		}
	}
	return SelectorCheck{Verdict: SelectorHolds}
}
