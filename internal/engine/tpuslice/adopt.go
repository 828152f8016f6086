package tpuslice

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
)

// sliceDifferences lists how the existing Slice differs from the spec:
// type, topology and partitions. With satisfies set (a selector chose the
// spec's partitions), the existing partitions need only satisfy it.
func sliceDifferences(have *clusterread.Slice, s clusterread.SliceSpec, satisfies func(ids []string) string) []string {
	var out []string
	if have.Type != s.Type {
		out = append(out, fmt.Sprintf("its type is %q (configuration: %q)", have.Type, s.Type))
	}
	if have.Topology != s.Topology {
		out = append(out, fmt.Sprintf("its topology is %q (configuration: %q)", have.Topology, s.Topology))
	}
	if have.Deleting {
		out = append(out, "it is being deleted")
	}
	switch {
	case satisfies != nil:
		if why := satisfies(have.PartitionIDs); why != "" {
			out = append(out, "its partitions "+strings.Join(have.PartitionIDs, ", ")+" do not satisfy the partition_selector: "+why)
		}
	case !sameSet(have.PartitionIDs, s.PartitionIDs):
		out = append(out, fmt.Sprintf("its partitions are %s (configuration: %s)", strings.Join(have.PartitionIDs, ", "), strings.Join(s.PartitionIDs, ", ")))
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
