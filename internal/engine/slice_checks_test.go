package engine

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
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
	return newEngineOver(enginetest.NewCompute(), nil, func(context.Context) (Cluster, error) { return kernel.NewCluster(nil, dyn), nil },
		withInventory(clusterread.Fixed(nodes, nil)))
}

// A plan's last checks: the access, then the maintenance, each run
// whatever the other found.
func TestPlanSliceChecks(t *testing.T) {
	t.Parallel()
	e := accessEngine()
	dra := DRA
	got := e.PlanSliceChecks(t.Context(), SliceChecks{Topology: "4x4x4", PartitionIDs: []string{"p1"}, Access: &dra, Maintenance: true})
	var mismatch *DeviceAccessError
	if !errors.As(got.AccessErr, &mismatch) || got.MaintenanceErr != nil || len(got.Maintenance) != 0 {
		t.Errorf("PlanSliceChecks = %+v; want a DeviceAccessError, and no maintenance (no cluster named)", got)
	}
	if got := e.PlanSliceChecks(t.Context(), SliceChecks{Topology: "4x4x4", PartitionIDs: []string{"d1"}, Access: &dra}); got.AccessErr != nil {
		t.Errorf("PlanSliceChecks of DRA nodes for DRA = %+v", got)
	}
}
