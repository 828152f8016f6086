package gkeapi_test

import (
	"net/http"
	"testing"

	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

// nodePools.update relabels the pool's nodes in place (old labels removed),
// setManagement changes the management, and both refuse a pool that is not
// RUNNING or does not exist.
func TestGKENodePoolUpdateInPlace(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	ctx := testContext(t)
	spec := poolSpec("np-c1-upd", reservationPath("tpu7x-reservation-2", "block-c", "sub-block-c1"), 2)
	spec.Config.Labels = map[string]string{"team": "ml"}
	if err := createPool(t, svc, spec); err != nil {
		t.Fatal(err)
	}
	name := clusterName() + "/nodePools/np-c1-upd"
	before := e.poolNodes(t, "np-c1-upd")

	op, err := svc.Projects.Locations.Clusters.NodePools.Update(name, &container.UpdateNodePoolRequest{
		Labels: &container.NodeLabels{Labels: map[string]string{"tier": "gold"}},
		Taints: &container.NodeTaints{Taints: []*container.NodeTaint{{Key: "dedicated", Value: "slices", Effect: "NO_SCHEDULE"}}},
	}).Context(ctx).Do()
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if op.OperationType != "UPDATE_NODE_POOL" {
		t.Errorf("operation type %q", op.OperationType)
	}
	if err := waitGKEOperation(ctx, svc, op); err != nil {
		t.Fatal(err)
	}
	after := e.poolNodes(t, "np-c1-upd")
	if len(after) != len(before) || after[0].Name != before[0].Name || after[0].Labels[wellknown.LabelPartitionID] != before[0].Labels[wellknown.LabelPartitionID] {
		t.Errorf("the update replaced the nodes or the partition: %d -> %d nodes", len(before), len(after))
	}
	for _, n := range after {
		if n.Labels["tier"] != "gold" || n.Labels["team"] != "" {
			t.Errorf("node %s labels %v: want tier=gold and no team", n.Name, n.Labels)
		}
	}
	got, err := svc.Projects.Locations.Clusters.NodePools.Get(name).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "RUNNING" || got.Config.Labels["tier"] != "gold" || len(got.Config.Taints) != 1 || got.Config.Taints[0].Effect != "NO_SCHEDULE" {
		t.Errorf("pool after update: status %s, labels %v, taints %v", got.Status, got.Config.Labels, got.Config.Taints)
	}

	op, err = svc.Projects.Locations.Clusters.NodePools.SetManagement(name, &container.SetNodePoolManagementRequest{
		Management: &container.NodeManagement{AutoRepair: false, AutoUpgrade: true, ForceSendFields: []string{"AutoRepair"}},
	}).Context(ctx).Do()
	if err != nil {
		t.Fatalf("setManagement: %v", err)
	}
	if err := waitGKEOperation(ctx, svc, op); err != nil {
		t.Fatal(err)
	}
	if got, err = svc.Projects.Locations.Clusters.NodePools.Get(name).Context(ctx).Do(); err != nil || got.Management == nil || got.Management.AutoRepair || !got.Management.AutoUpgrade {
		t.Errorf("management after setManagement: %+v (%v)", got.Management, err)
	}

	_, err = svc.Projects.Locations.Clusters.NodePools.Update(clusterName()+"/nodePools/none", &container.UpdateNodePoolRequest{
		Labels: &container.NodeLabels{Labels: map[string]string{"a": "b"}},
	}).Context(ctx).Do()
	wantGKEError(t, err, http.StatusNotFound, "nodePools/none")

	// While an update's operation runs (its delay held: Options.Delays),
	// another update of the pool is refused.
	e.setFaults(cloud.Faults{OperationDelayMs: 500})
	held := e.hold(cloud.DelayOperation, "")
	update, err := svc.Projects.Locations.Clusters.NodePools.Update(name, &container.UpdateNodePoolRequest{
		Labels: &container.NodeLabels{Labels: map[string]string{"a": "b"}},
	}).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	delay := held.next(t)
	if delay.Of != update.Name {
		t.Errorf("held the operation %s, want the update's %s", delay.Of, update.Name)
	}
	_, err = svc.Projects.Locations.Clusters.NodePools.SetManagement(name, &container.SetNodePoolManagementRequest{
		Management: &container.NodeManagement{AutoRepair: true},
	}).Context(ctx).Do()
	wantGKEError(t, err, http.StatusBadRequest, "an operation is in progress")
	delay.end()
	e.waitForOperations(t)
	held.none(t)
}
