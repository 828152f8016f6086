package tpuslice

import (
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
)

// A Slice adopted or refused: the differences of type, topology and
// partitions, and, for a selector, whether the partitions satisfy it.
func TestSliceDifferences(t *testing.T) {
	t.Parallel()
	spec := clusterread.SliceSpec{Name: "s", Type: "tpu7x", Topology: "4x4x8", PartitionIDs: []string{"p1", "p2"}}
	same := &clusterread.Slice{Name: "s", Type: "tpu7x", Topology: "4x4x8", PartitionIDs: []string{"p2", "p1"}}
	if d := sliceDifferences(same, spec, nil); len(d) != 0 {
		t.Errorf("the same Slice (partitions in another order) differs: %v", d)
	}
	other := &clusterread.Slice{Name: "s", Type: "tpu7x", Topology: "4x4x4", PartitionIDs: []string{"p3"}, Deleting: true}
	got := strings.Join(sliceDifferences(other, spec, nil), "; ")
	for _, want := range []string{`its topology is "4x4x4" (configuration: "4x4x8")`, "its partitions are p3 (configuration: p1, p2)", "it is being deleted"} {
		if !strings.Contains(got, want) {
			t.Errorf("differences %q lack %q", got, want)
		}
	}
	unmet := func([]string) string { return "held by slice x" }
	if got := strings.Join(sliceDifferences(same, spec, unmet), "; "); !strings.Contains(got, "do not satisfy the partition_selector: held by slice x") {
		t.Errorf("a selector the partitions do not satisfy gives %q", got)
	}
	met := func([]string) string { return "" }
	if d := sliceDifferences(&clusterread.Slice{Name: "s", Type: "tpu7x", Topology: "4x4x8", PartitionIDs: []string{"p7", "p8"}}, spec, met); len(d) != 0 {
		t.Errorf("partitions that satisfy the selector differ: %v", d)
	}
}
