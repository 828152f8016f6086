package slicerules

import (
	"fmt"
	"strings"
)

// CheckPartitionIDs checks a Slice's partition list against its topology:
// no empty (or blank) ID, none listed twice, and exactly t.Partitions() of
// them.
func (t Topology) CheckPartitionIDs(ids []string) error {
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if strings.TrimSpace(id) == "" {
			return fmt.Errorf("spec.partitionIds has an empty ID: each entry must be the ID that the partition's nodes carry in their %s label", PartitionIDLabel(t.PartitionShape()))
		}
		if seen[id] {
			return fmt.Errorf("spec.partitionIds lists %q more than once: each partition can be in a slice once", id)
		}
		seen[id] = true
	}
	if want := t.Partitions(); len(ids) != want {
		if t.SubSlice() {
			return fmt.Errorf("spec.partitionIds has %d IDs: a %s sub-slice lies in exactly 1 partition", len(ids), t)
		}
		return fmt.Errorf("spec.partitionIds has %d IDs: topology %s (%d chips) needs exactly %d, one per 4x4x4 partition of %d chips (A·B·C / %d)",
			len(ids), t, t.Chips(), want, ChipsPerPartition, ChipsPerPartition)
	}
	return nil
}
