package tpuslice

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
)

// The partitions of an imported slice stand for its selector's choice
// while they are inside the selector's pools and block and no other slice
// holds them; health is not part of it.
func TestCheckSelectorHolds(t *testing.T) {
	t.Parallel()
	held := []*unstructured.Unstructured{enginetest.Slice("mine", "p1", "p3"), enginetest.Slice("other", "p5")}
	e := planEngine(clusterread.Fixed(enginetest.PlanNodes(), held))
	for name, tc := range map[string]struct {
		topo string
		sel  PartitionSelector
		ids  []string
		want SelectorVerdict
		why  string
	}{
		"inside the pools":           {"4x4x8", PartitionSelector{NodePools: []string{"np-1", "np-2", "np-3"}}, []string{"p1", "p3"}, SelectorHolds, ""},
		"every pool":                 {"4x4x8", PartitionSelector{}, []string{"p1", "p3"}, SelectorHolds, ""},
		"in the block":               {"4x4x8", PartitionSelector{Block: "b1"}, []string{"p1", "p3"}, SelectorHolds, ""},
		"a pool left out":            {"4x4x8", PartitionSelector{NodePools: []string{"np-1"}}, []string{"p1", "p3"}, SelectorBroken, "partition p3 is in node pool np-3, which partition_selector.node_pools does not name"},
		"another block":              {"4x4x8", PartitionSelector{Block: "b2"}, []string{"p1", "p3"}, SelectorBroken, "partition p1 is in block b1, not in partition_selector.block b2"},
		"held by another slice":      {"4x4x8", PartitionSelector{}, []string{"p1", "p5"}, SelectorBroken, "partition p5 is held by slice other"},
		"a partition that is gone":   {"4x4x8", PartitionSelector{}, []string{"p1", "p9"}, SelectorBroken, "partition p9 is not a 4x4x4 partition of the cluster now"},
		"a count the topology lacks": {"4x4x4", PartitionSelector{}, []string{"p1", "p3"}, SelectorBroken, "has 2 partition(s); topology 4x4x4 takes 1"},
		"an empty pool list":         {"4x4x8", PartitionSelector{NodePools: []string{}}, []string{"p1", "p3"}, SelectorBroken, "node_pools is an empty list"},
	} {
		got := e.CheckSelectorHolds(t.Context(), "mine", tc.topo, tc.sel, tc.ids)
		if got.Verdict != tc.want || !strings.Contains(got.Reason, tc.why) {
			t.Errorf("%s: %+v, want verdict %d saying %q", name, got, tc.want, tc.why)
		}
	}
	// A cluster that cannot be read: the check did not run, and says so.
	blind := planEngine(nil, inventoryFails(errors.New("no route to host")))
	if got := blind.CheckSelectorHolds(t.Context(), "mine", "4x4x8", PartitionSelector{}, []string{"p1", "p3"}); got.Verdict != SelectorUnknown || !strings.Contains(got.Reason, "cannot be read now") {
		t.Errorf("unreadable cluster: %+v, want SelectorUnknown saying it cannot be read", got)
	}
}
