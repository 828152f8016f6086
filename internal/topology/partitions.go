package topology

import (
	"fmt"
	"strings"
)

// PartitionError reports a partition list that does not fit its topology.
type PartitionError struct {
	Detail string
}

func (e *PartitionError) Error() string { return e.Detail }

// CheckPartitionIDs checks a slice's partition list against the topology:
// no empty IDs, no ID twice, and exactly A×B×C/64 of them.
func (t Topology) CheckPartitionIDs(ids []string) error {
	if err := CheckUniqueIDs(ids); err != nil {
		return err
	}
	return t.CheckPartitionCount(len(ids))
}

// CheckUniqueIDs checks that no partition ID is empty or listed twice.
func CheckUniqueIDs(ids []string) error {
	seen := make(map[string]int, len(ids))
	for i, id := range ids {
		if strings.TrimSpace(id) == "" {
			return &PartitionError{Detail: fmt.Sprintf("partition ID at index %d is empty; every entry must be the value of a node's %s label (or of the label of the sub-slice's shape)", i, PartitionIDLabel(PartitionTopology))}
		}
		if first, dup := seen[id]; dup {
			return &PartitionError{Detail: fmt.Sprintf(
				"partition ID %q is listed twice (indexes %d and %d); a partition can belong to a slice only once, so remove the repeat", id, first, i)}
		}
		seen[id] = i
	}
	return nil
}

// CheckPartitionCount checks that n partitions make up the topology, and
// suggests the topologies that n partitions would make.
func (t Topology) CheckPartitionCount(n int) error {
	want := t.Partitions()
	if n == want {
		return nil
	}
	if t.SubSlice() {
		return &PartitionError{Detail: fmt.Sprintf("sub-slice topology %q needs exactly 1 partition ID, a %s partition (the %s label of its nodes), but %d are given",
			t.String(), t.String(), PartitionIDLabel(t.String()), n)}
	}
	detail := fmt.Sprintf("topology %q needs exactly %d partition(s) (%d×%d×%d chips / %d chips per partition), but %d partition ID(s) are given; ",
		t.String(), want, t.A, t.B, t.C, ChipsPerPartition, n)
	if n < want {
		detail += fmt.Sprintf("add %d partition ID(s)", want-n)
	} else {
		detail += fmt.Sprintf("remove %d partition ID(s)", n-want)
	}
	if shapes := ForPartitions(n); len(shapes) > 0 {
		names := make([]string, len(shapes))
		for i, s := range shapes {
			names[i] = s.String()
		}
		detail += fmt.Sprintf(", or use a topology of %d partition(s): %s", n, strings.Join(names, ", "))
	}
	return &PartitionError{Detail: detail}
}

// ForPartitions lists every valid tpu7x topology made of exactly n
// partitions, smallest first dimension first. It returns nil when there is
// none (n < 1 or more chips than a pod holds).
func ForPartitions(n int) []Topology {
	if n < 1 || n > MaxPartitions {
		return nil
	}
	chips := n * ChipsPerPartition
	var out []Topology
	for a := DimensionMultiple; a*a*a <= chips; a += DimensionMultiple {
		for b := a; a*b*b <= chips; b += DimensionMultiple {
			if chips%(a*b) != 0 {
				continue
			}
			c := chips / (a * b)
			if c%DimensionMultiple == 0 && c >= b {
				out = append(out, Topology{A: a, B: b, C: c})
			}
		}
	}
	return out
}
