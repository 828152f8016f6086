package clusterread

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func TestListPartitionsFilters(t *testing.T) {
	t.Parallel()
	e := fixedReads(Fixed(enginetest.PlanNodes(), []*unstructured.Unstructured{enginetest.Slice("s", "p2")}))
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
		if got := idsOf(parts); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", name, got, tc.want)
		}
	}
}

// Unhealthy partitions are summarised once per process, whatever the
// number of pools read.
func TestUnhealthyPartitionsOnce(t *testing.T) {
	t.Parallel()
	e := fixedReads(Fixed(enginetest.PlanNodes(), nil))
	summary := e.UnhealthyPartitionsOnce(t.Context())
	for _, want := range []string{"2 of the cluster's 5 partitions", "node pool np-3, partition p3: DEGRADED, 1/1 nodes Ready", "node pool np-4, partition p4: HEALTHY, 0/1 nodes Ready"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary %q does not contain %q", summary, want)
		}
	}
	if again := e.UnhealthyPartitionsOnce(t.Context()); again != "" {
		t.Errorf("second summary = %q, want none", again)
	}
	healthy := fixedReads(Fixed(enginetest.PlanNodes()[:2], nil))
	if s := healthy.UnhealthyPartitionsOnce(t.Context()); s != "" {
		t.Errorf("summary of healthy partitions = %q, want none", s)
	}
}

// fixedReads is the reads New builds over inv, bound to no cluster, whose
// clients cannot be made.
func fixedReads(inv *Inventory) *Reads {
	return New(nil, ClusterRef{}, func(context.Context) (kernel.Cluster, error) {
		return nil, errors.New("this test has no Kubernetes cluster")
	}, Options{Inventory: inv})
}

func idsOf(parts []Partition) []string {
	ids := []string{}
	for _, p := range parts {
		ids = append(ids, p.ID)
	}
	return ids
}
