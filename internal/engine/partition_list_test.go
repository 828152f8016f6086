package engine

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func TestListPartitionsFilters(t *testing.T) {
	t.Parallel()
	e := planEngine(syncedInventory(planNodes(), []*unstructured.Unstructured{enginetest.Slice("s", "p2")}))
	for name, tc := range map[string]struct {
		f    PartitionFilter
		want []string
	}{
		"all":            {PartitionFilter{}, []string{"p1", "p2", "p3", "p4", "p5"}},
		"pools":          {PartitionFilter{NodePools: []string{"np-1", "np-5"}}, []string{"p1", "p5"}},
		"states":         {PartitionFilter{States: []string{wellknown.PartitionDegraded}}, []string{"p3"}},
		"block":          {PartitionFilter{Block: "b2"}, []string{"p5"}},
		"available only": {PartitionFilter{AvailableOnly: true}, []string{"p1", "p3", "p5"}},
		"combined":       {PartitionFilter{AvailableOnly: true, Block: "b1"}, []string{"p1", "p3"}},
	} {
		parts, err := e.ListPartitions(t.Context(), tc.f)
		if err != nil {
			t.Fatal(err)
		}
		if got := partitionIDs(parts); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}

// Unhealthy partitions are summarised once per process, whatever the
// number of pools read.
func TestUnhealthyPartitionsOnce(t *testing.T) {
	t.Parallel()
	e := planEngine(syncedInventory(planNodes(), nil))
	summary := e.unhealthyPartitionsOnce(t.Context())
	for _, want := range []string{"2 of the cluster's 5 partitions", "node pool np-3, partition p3: DEGRADED, 1/1 nodes Ready", "node pool np-4, partition p4: HEALTHY, 0/1 nodes Ready"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary %q does not contain %q", summary, want)
		}
	}
	if again := e.unhealthyPartitionsOnce(t.Context()); again != "" {
		t.Errorf("second summary = %q, want none", again)
	}
	healthy := planEngine(syncedInventory(planNodes()[:2], nil))
	if s := healthy.unhealthyPartitionsOnce(t.Context()); s != "" {
		t.Errorf("summary of healthy partitions = %q, want none", s)
	}
}
