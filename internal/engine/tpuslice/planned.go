package tpuslice

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// PartitionClaimedError is a slice whose plan lists a partition that
// another slice of the same plan claims: the same partition, or one that
// overlaps it (a sub-slice partition inside it, or the 4x4x4 around it).
// Both would reach the apply, and whichever was created second would
// fail.
type PartitionClaimedError struct {
	// Slice is the slice planned second, Partition its partition; Other
	// is the slice that claimed OtherPartition first.
	Slice, Partition      string
	Other, OtherPartition string
}

func (e *PartitionClaimedError) Error() string {
	overlap := ""
	if e.OtherPartition != e.Partition {
		overlap = fmt.Sprintf(" through partition %s, which overlaps it", e.OtherPartition)
	}
	return fmt.Sprintf("slice %q lists partition %s, which slice %q of this configuration (another gke_tpu_slice) also claims%s: "+
		"a partition joins one slice at a time, so whichever of the two the apply created second would fail. "+
		"List another partition in one of them (data source gke_partitions with available_only = true lists the free ones), "+
		"or let one of them choose its partitions at apply with a partition_selector",
		e.Slice, e.Partition, e.Other, overlap)
}

// plannedClaims are the partitions that the slices of the running plan
// list, as their plans note them. Terraform plans every resource of a
// configuration in one provider process (and again during the apply,
// with the same names), so two slices of it that claim one partition are
// told apart here, whichever is planned second. One per engine: one per
// configuration.
type plannedClaims struct {
	mu     sync.Mutex
	claims []partitionClaim
}

// partitionClaim is one partition a slice of the plan lists, with the
// partitions that hold it (the larger shapes around it, when known).
type partitionClaim struct {
	slice, id string
	holders   []string
}

// overlaps says whether the two claims are of one partition, or of
// partitions one of which holds the other.
func (c partitionClaim) overlaps(o partitionClaim) bool {
	return c.id == o.id || slices.Contains(c.holders, o.id) || slices.Contains(o.holders, c.id)
}

// claim notes the partitions of the slice, in place of what its earlier
// plan noted, and returns a PartitionClaimedError, noting none of them,
// when another slice claims one of them or one that overlaps it.
func (p *plannedClaims) claim(slice string, claims []partitionClaim) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range claims {
		for _, o := range p.claims {
			if o.slice != slice && c.overlaps(o) {
				return &PartitionClaimedError{Slice: slice, Partition: c.id, Other: o.slice, OtherPartition: o.id}
			}
		}
	}
	p.claims = slices.DeleteFunc(p.claims, func(o partitionClaim) bool { return o.slice == slice })
	p.claims = append(p.claims, claims...)
	return nil
}

// claimPlanned notes that the slice name of topology topo ("" when not
// known) lists the partitions ids in this plan, and returns a
// PartitionClaimedError when another slice of the plan claims one of them
// or one that overlaps it. The partitions that hold each (the 4x4x4
// around a sub-slice partition, say) come from the cluster's inventory
// when it can be read and the topology is known; otherwise only the same
// IDs are told apart.
func (e *Slices) claimPlanned(ctx context.Context, name, topo string, ids []string) error {
	if name == "" || len(ids) == 0 {
		return nil
	}
	holders := e.partitionHolders(ctx, topo)
	claims := make([]partitionClaim, len(ids))
	for i, id := range ids {
		claims[i] = partitionClaim{slice: name, id: id, holders: holders[id]}
	}
	return e.planned.claim(name, claims)
}

// partitionHolders maps the ID of every partition of the topology's shape
// to the partitions that hold it; nil when the topology is not known or
// the cluster cannot be read.
func (e *Slices) partitionHolders(ctx context.Context, topo string) map[string][]string {
	t, err := topology.ParseTPU7x(topo)
	if err != nil || t.PartitionShape() == topology.PartitionTopology {
		return nil // a 4x4x4 partition has none
	}
	inv, known, _ := e.reads.Known(ctx)
	if !known {
		return nil
	}
	parts, err := inv.PartitionsOf(ctx, t.PartitionShape())
	if err != nil {
		return nil
	}
	out := make(map[string][]string, len(parts))
	for _, p := range parts {
		out[p.ID] = p.Ancestors
	}
	return out
}
