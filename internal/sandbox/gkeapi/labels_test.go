package gkeapi_test

import (
	"net/http"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

// nodePools.create and nodePools.update refuse reserved label and taint
// keys with a 400 INVALID_ARGUMENT, before anything is made.
func TestGKENodePoolReservedKeysRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	ctx := testContext(t)
	path := reservationPath("tpu7x-reservation", "block-b", "sub-block-b3")

	spec := poolSpec("np-b3-reserved", path, 1)
	spec.Config.Labels = map[string]string{"team": "ml", "node-role.kubernetes.io/worker": ""}
	wantGKEError(t, createPool(t, svc, spec), http.StatusBadRequest, "Applying kubernetes label is not allowed: node-role.kubernetes.io/worker.")

	spec = poolSpec("np-b3-reserved", path, 1)
	spec.Config.Taints = []*container.NodeTaint{{Key: cloud.TaintTPU, Value: "present", Effect: "NO_SCHEDULE"}}
	wantGKEError(t, createPool(t, svc, spec), http.StatusBadRequest, `Node taints with key "google.com/tpu" are managed by GKE`)

	spec = poolSpec("np-b3-reserved", path, 1)
	if err := createPool(t, svc, spec); err != nil {
		t.Fatalf("the refused creates took the sub-block: %v", err)
	}
	_, err := svc.Projects.Locations.Clusters.NodePools.Update(clusterName()+"/nodePools/np-b3-reserved", &container.UpdateNodePoolRequest{
		Labels: &container.NodeLabels{Labels: map[string]string{wellknown.LabelNodePool: "other"}},
	}).Context(ctx).Do()
	wantGKEError(t, err, http.StatusBadRequest, `Node labels with key "cloud.google.com/gke-nodepool" are managed by GKE`)
}

// A pool's GCP labels (config.resourceLabels) are kept at create and
// changed in place by nodePools.update, as GKE's UpdateNodePoolRequest
// resourceLabels does: same nodes, same partition.
func TestGKENodePoolResourceLabels(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	ctx := testContext(t)
	spec := poolSpec("np-c2-gcp", reservationPath("tpu7x-reservation-2", "block-c", "sub-block-c2"), 1)
	spec.Config.ResourceLabels = map[string]string{"env": "test"}
	if err := createPool(t, svc, spec); err != nil {
		t.Fatal(err)
	}
	name := clusterName() + "/nodePools/np-c2-gcp"
	got, err := svc.Projects.Locations.Clusters.NodePools.Get(name).Context(ctx).Do()
	if err != nil || got.Config.ResourceLabels["env"] != "test" {
		t.Fatalf("pool after create: resourceLabels %v (%v)", got.Config.ResourceLabels, err)
	}
	before := e.poolNodes(t, "np-c2-gcp")

	op, err := svc.Projects.Locations.Clusters.NodePools.Update(name, &container.UpdateNodePoolRequest{
		ResourceLabels: &container.ResourceLabels{Labels: map[string]string{"env": "prod", "cost-center": "ml"}},
	}).Context(ctx).Do()
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if err := waitGKEOperation(ctx, svc, op); err != nil {
		t.Fatal(err)
	}
	got, err = svc.Projects.Locations.Clusters.NodePools.Get(name).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if rl := got.Config.ResourceLabels; len(rl) != 2 || rl["env"] != "prod" || rl["cost-center"] != "ml" || got.Status != "RUNNING" {
		t.Errorf("pool after update: status %s, resourceLabels %v", got.Status, rl)
	}
	after := e.poolNodes(t, "np-c2-gcp")
	if len(after) != len(before) || after[0].Name != before[0].Name || after[0].UID != before[0].UID {
		t.Errorf("the update replaced the nodes: %d -> %d", len(before), len(after))
	}
}

// A pool deleted before its late nodes are made has none once they would
// have been: its nodes go with it. The test holds the nodes' delay
// (Options.Delays) and ends it once the pool is deleted: what is asserted
// is the order (the create is done with no node, the delete is done, the
// end of the delay makes none) and that there was one such delay, of the
// length the fault says, not a time.
func TestGKEPoolDeletedBeforeItsNodes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	e.setFaults(cloud.Faults{NodeProvisionDelayMs: 4000})
	late := e.hold(cloud.DelayNodes, "np-b3-early")
	if err := createPool(t, svc, poolSpec("np-b3-early", reservationPath("tpu7x-reservation", "block-b", "sub-block-b3"), 2)); err != nil {
		t.Fatal(err)
	}
	nodes := late.next(t) // taken by the create, which is done
	if nodes.For != 4*time.Second {
		t.Errorf("the nodes' delay is %s, want the fault's 4s", nodes.For)
	}
	if n := len(e.poolNodes(t, "np-b3-early")); n != 0 {
		t.Fatalf("%d nodes of np-b3-early before their delay ended", n)
	}
	deletePool(t, svc, "np-b3-early")
	nodes.end() // the late nodes are made now, or not, and have been when end returns
	if n := len(e.poolNodes(t, "np-b3-early")); n != 0 {
		t.Errorf("%d nodes of the deleted pool np-b3-early", n)
	}
	late.none(t)
}
