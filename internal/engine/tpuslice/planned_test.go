package tpuslice

import (
	"errors"
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
)

// claimOf plans the new slice name of topology topo listing ids, and
// returns what Plan says of its claim.
func claimOf(t *testing.T, e *Slices, name, topo string, ids ...string) error {
	t.Helper()
	q := SlicePlan{New: NewSlicePlan{Name: name, Topology: topo, PartitionIDs: ids}, Topology: topo, PartitionIDs: ids}
	return e.Plan(t.Context(), q).Claimed
}

// Two slices of one plan that list one partition, or partitions that
// overlap (a sub-slice partition inside the 4x4x4 another lists, a 2x2x2
// inside a 2x4x4), are refused at plan, whichever is planned second,
// naming the other slice and both partitions; partitions side by side in
// one sub-block, a slice planned again, an existing slice and a slice
// whose partitions are chosen at apply pass.
func TestPlanRefusesPartitionsClaimedTwice(t *testing.T) {
	t.Parallel()
	whole := enginetest.SubID("sb1", "4x4x4", 0)
	half0, half1 := enginetest.SubID("sb1", "2x4x4", 0), enginetest.SubID("sb1", "2x4x4", 1)
	quarter := enginetest.SubID("sb1", "2x2x4", 0) // inside half0
	e := planEngine(clusterread.Fixed(enginetest.SubBlockNodes("sb1", "pool-1", "b1"), nil))

	if err := claimOf(t, e, "big", "4x4x4", whole); err != nil {
		t.Fatalf("first slice: %v", err)
	}
	if err := claimOf(t, e, "big", "4x4x4", whole); err != nil {
		t.Errorf("the slice planned again: %v", err)
	}
	err := claimOf(t, e, "twin", "4x4x4", whole)
	var claimed *PartitionClaimedError
	if !errors.As(err, &claimed) || claimed.Slice != "twin" || claimed.Other != "big" || claimed.Partition != whole || claimed.OtherPartition != whole {
		t.Fatalf("a second slice of the same partition: %#v; want a PartitionClaimedError naming big", err)
	}
	for _, want := range []string{`slice "twin" lists partition ` + whole, `slice "big" of this configuration (another gke_tpu_slice) also claims:`,
		"data source gke_partitions with available_only = true", "partition_selector"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	err = claimOf(t, e, "half", "2x4x4", half0)
	if !errors.As(err, &claimed) || claimed.Other != "big" || claimed.Partition != half0 || claimed.OtherPartition != whole ||
		!strings.Contains(err.Error(), "through partition "+whole+", which overlaps it") {
		t.Fatalf("a sub-slice inside the 4x4x4 of another: %v; want it refused through %s", err, whole)
	}

	// Without the 4x4x4 slice: sub-slices side by side pass, one inside
	// another is refused, whichever comes second.
	e = planEngine(clusterread.Fixed(enginetest.SubBlockNodes("sb1", "pool-1", "b1"), nil))
	if err := claimOf(t, e, "quarter", "2x2x4", quarter); err != nil {
		t.Fatalf("a 2x2x4 sub-slice: %v", err)
	}
	if err := claimOf(t, e, "right", "2x4x4", half1); err != nil {
		t.Errorf("a 2x4x4 beside the 2x2x4: %v", err)
	}
	if err := claimOf(t, e, "left", "2x4x4", half0); !errors.As(err, &claimed) || claimed.Other != "quarter" || claimed.OtherPartition != quarter {
		t.Errorf("a 2x4x4 around the 2x2x4: %v; want it refused naming quarter", err)
	}
	if err := claimOf(t, e, "whole", "4x4x4", whole); !errors.As(err, &claimed) || claimed.Partition != whole {
		t.Errorf("the 4x4x4 around both: %v; want it refused", err)
	}
	existing := e.Plan(t.Context(), SlicePlan{ID: "right", Topology: "2x4x4", PartitionIDs: []string{half1}})
	if existing.Claimed != nil {
		t.Errorf("the existing slice right, planned again: %v", existing.Claimed)
	}
	if got := e.Plan(t.Context(), SlicePlan{New: NewSlicePlan{Name: "chosen", Topology: "2x4x4", Selector: &PartitionSelector{}}, Topology: "2x4x4"}); got.Claimed != nil {
		t.Errorf("a slice whose selector chooses at apply: %v", got.Claimed)
	}

	// A cluster that cannot be read: only the same IDs are told apart.
	e = planEngine(nil, inventoryFails(errors.New("no cluster yet")))
	if err := claimOf(t, e, "big", "4x4x4", whole); err != nil {
		t.Fatalf("first slice, no cluster: %v", err)
	}
	if err := claimOf(t, e, "half", "2x4x4", half0); err != nil {
		t.Errorf("an overlap the plan cannot see without the cluster: %v", err)
	}
	if err := claimOf(t, e, "twin", "4x4x4", whole); !errors.As(err, &claimed) {
		t.Errorf("the same partition, no cluster: %v; want a PartitionClaimedError", err)
	}
}
