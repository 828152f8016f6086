package engine

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// accessEngine is an engine whose inventory holds a partition p1 on
// device-plugin nodes and d1 on nodes of GKE's TPU DRA driver.
func accessEngine() *Engine {
	node := func(pool, id string, opts ...enginetest.NodeOpt) *corev1.Node {
		opts = append(opts, enginetest.Partition(id, wellknown.PartitionHealthy), enginetest.Labelled(wellknown.LabelTopologyBlock, "b1"), enginetest.Ready)
		return enginetest.Node(pool+"-0", pool, opts...)
	}
	nodes := []*corev1.Node{node("np-1", "p1"), node("np-d1", "d1", enginetest.Labelled(wellknown.LabelTPUDRADriver, "true"))}
	dyn := enginetest.NewDynamic()
	return newEngineOver(enginetest.NewCompute(), nil, func(context.Context) (kernel.Cluster, error) { return kernel.NewCluster(nil, dyn), nil },
		withInventory(clusterread.Fixed(nodes, nil)))
}

// One plan call runs the checks a slice's plan needs, in order, and
// stops where a replacement chooses the partitions again.
func TestSlicePlan(t *testing.T) {
	t.Parallel()
	e := accessEngine()
	dra := clusterread.DRA
	ids := []string{"p1"}

	// A new slice: its checks, then the access and the maintenance,
	// whatever the others found.
	got := e.Slices().Plan(t.Context(), tpuslice.SlicePlan{New: tpuslice.NewSlicePlan{Name: "s", Topology: "4x4x4", PartitionIDs: ids},
		Topology: "4x4x4", PartitionIDs: ids, Access: &dra, Maintenance: true})
	var mismatch *tpuslice.DeviceAccessError
	if !errors.As(got.AccessErr, &mismatch) || got.MaintenanceErr != nil || len(got.Maintenance) != 0 || got.Selector != nil {
		t.Errorf("Plan of a new slice = %+v; want a DeviceAccessError, and no maintenance (no cluster named)", got)
	}
	if got := e.Slices().Plan(t.Context(), tpuslice.SlicePlan{Topology: "4x4x4", PartitionIDs: []string{"d1"}, Access: &dra}); got.AccessErr != nil {
		t.Errorf("Plan of DRA nodes for DRA = %+v", got)
	}

	// An existing slice whose new selector its partitions do not satisfy
	// is replaced: the access of the partitions it has is not checked.
	broken := tpuslice.SlicePlan{ID: "s", Topology: "4x4x4", PartitionIDs: ids, Access: &dra,
		Selector: &tpuslice.SelectorQuestion{Name: "s", Topology: "4x4x4", Selector: tpuslice.PartitionSelector{NodePools: []string{"np-d1"}}, PartitionIDs: ids}}
	got = e.Slices().Plan(t.Context(), broken)
	if got.Selector == nil || got.Selector.Verdict != tpuslice.SelectorBroken || !got.Replaces(broken) || got.AccessErr != nil {
		t.Errorf("Plan of a slice outside its new selector = %+v; want the selector broken, a replacement, and no access check", got)
	}
	// One that satisfies it is kept, and its access checked.
	holds := broken
	holds.Selector = &tpuslice.SelectorQuestion{Name: "s", Topology: "4x4x4", Selector: tpuslice.PartitionSelector{NodePools: []string{"np-1"}}, PartitionIDs: ids}
	got = e.Slices().Plan(t.Context(), holds)
	if got.Selector == nil || got.Selector.Verdict != tpuslice.SelectorHolds || got.Replaces(holds) || !errors.As(got.AccessErr, &mismatch) {
		t.Errorf("Plan of a slice inside its new selector = %+v; want it kept, and its access checked", got)
	}
}
