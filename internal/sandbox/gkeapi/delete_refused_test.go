package gkeapi_test

import (
	"fmt"
	"net/http"
	"testing"

	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

// refusedDelete is GKE's refusal of a delete of a node pool while the
// pool's operation runs (hashicorp/terraform-provider-google #975,
// #10366), doing "creating" or "deleting".
func refusedDelete(op, doing string) string {
	return fmt.Sprintf("Operation %s is currently %s a node pool for cluster %s. Please wait and try again once it is done.", op, doing, inv.Cluster)
}

// deleteRaw sends a node pool delete with the token and returns the
// status and the decoded JSON body, the error as the wire carries it.
func (e *env) deleteRaw(t *testing.T, pool string) (int, map[string]any) {
	t.Helper()
	return e.send(t, http.MethodDelete, "v1/"+clusterName()+"/nodePools/"+pool)
}

// wantRefused checks that a delete of pool is refused as GKE refuses it
// while the operation op is doing ("creating", "deleting") the pool: 400
// FAILED_PRECONDITION, in the APIs' error shape.
func (e *env) wantRefused(t *testing.T, pool, op, doing string) {
	t.Helper()
	status, body := e.deleteRaw(t, pool)
	want := refusedDelete(op, doing)
	got, _ := body["error"].(map[string]any)
	errs, _ := got["errors"].([]any)
	var reason any
	if len(errs) == 1 {
		first, _ := errs[0].(map[string]any)
		reason = first["reason"]
	}
	if status != http.StatusBadRequest || got["code"] != float64(http.StatusBadRequest) || got["status"] != "FAILED_PRECONDITION" ||
		got["message"] != want || reason != "failedPrecondition" {
		t.Errorf("delete of %s while %s runs: %d %v; want 400 FAILED_PRECONDITION (reason failedPrecondition) %q", pool, op, status, body, want)
	}
}

// A delete of a node pool is refused while the pool's own create, or
// delete, operation runs, naming the operation and the cluster; once it
// is done, the delete is accepted.
func TestGKENodePoolDeleteRefusedWhileItsOperationRuns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	ctx := testContext(t)
	pools := svc.Projects.Locations.Clusters.NodePools
	name := clusterName() + "/nodePools/np-busy"

	e.setFaults(cloud.Faults{OperationDelayMs: 500})
	held := e.hold(cloud.DelayOperation, "")
	create, err := pools.Create(clusterName(), &container.CreateNodePoolRequest{
		NodePool: poolSpec("np-busy", reservationPath("tpu7x-reservation", "block-a", "sub-block-a2"), 4),
	}).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	creating := held.next(t)
	e.wantRefused(t, "np-busy", create.Name, "creating")
	// The client library's error carries the same.
	_, err = pools.Delete(name).Context(ctx).Do()
	wantGKEError(t, err, http.StatusBadRequest, refusedDelete(create.Name, "creating"))
	creating.end()
	if err := waitGKEOperation(ctx, svc, create); err != nil {
		t.Fatal(err)
	}

	del, err := pools.Delete(name).Context(ctx).Do()
	if err != nil {
		t.Fatalf("delete after the create is done: %v", err)
	}
	deleting := held.next(t)
	e.wantRefused(t, "np-busy", del.Name, "deleting")
	deleting.end()
	if err := waitGKEOperation(ctx, svc, del); err != nil {
		t.Fatal(err)
	}
	_, err = pools.Delete(name).Context(ctx).Do()
	wantGKEError(t, err, http.StatusNotFound, "nodePools/np-busy")
	held.none(t)
}

// An operation the HoldOperations fault holds runs, as every answer
// shows it, until its hold ends (HoldOperationsMs): a delete of its pool
// is refused meanwhile, though the world made the pool, and accepted
// after.
func TestGKENodePoolDeleteRefusedWhileItsOperationIsHeld(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	ctx := testContext(t)
	pools := svc.Projects.Locations.Clusters.NodePools

	e.setFaults(cloud.Faults{Container: cloud.APIFaults{HoldOperations: 1, HoldOperationsMs: 60_000}})
	hold := e.hold(cloud.DelayHold, "")
	create, err := pools.Create(clusterName(), &container.CreateNodePoolRequest{
		NodePool: poolSpec("np-held", reservationPath("tpu7x-reservation", "block-a", "sub-block-a2"), 4),
	}).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	e.waitForOperations(t) // the world's work is done; its answers still say RUNNING
	release := hold.next(t)
	if release.Of != "container "+create.Name {
		t.Errorf("the hold's delay is of %q, want %q", release.Of, "container "+create.Name)
	}
	got, err := svc.Projects.Locations.Operations.Get(fmt.Sprintf("projects/%s/locations/%s/operations/%s", inv.Project, inv.Region, create.Name)).Context(ctx).Do()
	if err != nil || got.Status != "RUNNING" {
		t.Fatalf("the held create: %+v, %v; want RUNNING", got, err)
	}
	e.wantRefused(t, "np-held", create.Name, "creating")
	release.end()
	if err := waitGKEOperation(ctx, svc, create); err != nil {
		t.Fatal(err)
	}
	deletePool(t, svc, "np-held")
	hold.none(t)
}
