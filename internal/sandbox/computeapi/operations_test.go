package computeapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

// An operation is RUNNING, and its policy absent, while its delay is held
// (Options.Delays); once the delay ends it is DONE and the policy exists.
func TestComputeOperationGetAndWait(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setFaults(cloud.Faults{OperationDelayMs: 400})
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewResourcePoliciesRESTClient)
	ops := newComputeClient(t, e, compute.NewRegionOperationsRESTClient)
	zoneOps := newComputeClient(t, e, compute.NewZoneOperationsRESTClient)
	name := "wp-op"
	held := e.hold(cloud.DelayOperation)

	op, err := c.Insert(ctx, &computepb.InsertResourcePolicyRequest{
		Project: inv.Project, Region: inv.Region, ResourcePolicyResource: dynamicSlicingPolicy(name),
	})
	if err != nil {
		t.Fatalf("insert: %v", err)
	}
	delay := held.next(t)
	if delay.Of != op.Name() || delay.For != 400*time.Millisecond {
		t.Errorf("held the operation %s for %s, want %s for the fault's 400ms", delay.Of, delay.For, op.Name())
	}
	got, err := ops.Get(ctx, &computepb.GetRegionOperationRequest{Project: inv.Project, Region: inv.Region, Operation: op.Name()})
	if err != nil {
		t.Fatalf("operations.get: %v", err)
	}
	if got.GetStatus() != computepb.Operation_RUNNING || got.GetKind() != "compute#operation" ||
		got.GetSelfLink() != testRegionLink+"/operations/"+op.Name() || got.GetInsertTime() == "" {
		t.Errorf("operation before its delay: status %v, kind %q, selfLink %q, insertTime %q; want RUNNING, compute#operation, %s and a time",
			got.GetStatus(), got.GetKind(), got.GetSelfLink(), got.GetInsertTime(), testRegionLink+"/operations/"+op.Name())
	}
	if _, err := getPolicy(ctx, c, name); err == nil {
		t.Error("the policy exists before its insert operation is done")
	}

	delay.end() // the insert's work is done when end returns
	got, err = ops.Wait(ctx, &computepb.WaitRegionOperationRequest{Project: inv.Project, Region: inv.Region, Operation: op.Name()})
	if err != nil {
		t.Fatalf("operations.wait: %v", err)
	}
	if got.GetStatus() != computepb.Operation_DONE || got.GetError() != nil {
		t.Fatalf("operation after wait: status %v, error %v; want DONE without error", got.GetStatus(), got.GetError())
	}
	if _, err := getPolicy(ctx, c, name); err != nil {
		t.Errorf("get after the operation: %v", err)
	}
	e.w.Mu.Lock()
	rec := e.w.Ops[op.Name()]
	e.w.Mu.Unlock()
	if rec == nil || !rec.Done || rec.API != "compute" || rec.Type != "insert" {
		t.Errorf("operation record %+v, want a done compute insert", rec)
	}
	held.none(t)

	// A regional operation is not a zonal one, and unknown names are 404.
	_, err = zoneOps.Get(ctx, &computepb.GetZoneOperationRequest{Project: inv.Project, Zone: inv.Zone, Operation: op.Name()})
	wantAPIError(t, err, http.StatusNotFound, op.Name())
	_, err = ops.Wait(ctx, &computepb.WaitRegionOperationRequest{Project: inv.Project, Region: inv.Region, Operation: "operation-none"})
	wantAPIError(t, err, http.StatusNotFound, "operation-none")
}

// operations.wait answers RUNNING after its limit (2 s) while the
// operation runs: the test holds the operation's delay (Options.Delays)
// through the first wait, so that it cannot end before that wait's limit,
// and ends it before the second, which sees it DONE.
func TestComputeOperationWaitReturnsWhileRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setFaults(cloud.Faults{OperationDelayMs: 2300})
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewResourcePoliciesRESTClient)
	ops := newComputeClient(t, e, compute.NewRegionOperationsRESTClient)
	name := "wp-slow"
	held := e.hold(cloud.DelayOperation)
	op, err := c.Insert(ctx, &computepb.InsertResourcePolicyRequest{
		Project: inv.Project, Region: inv.Region, ResourcePolicyResource: dynamicSlicingPolicy(name),
	})
	if err != nil {
		t.Fatalf("insert: %v", err)
	}
	delay := held.next(t)
	req := &computepb.WaitRegionOperationRequest{Project: inv.Project, Region: inv.Region, Operation: op.Name()}
	got, err := ops.Wait(ctx, req)
	if err != nil {
		t.Fatalf("operations.wait: %v", err)
	}
	if got.GetStatus() != computepb.Operation_RUNNING {
		t.Errorf("wait on a held operation answered %v; want RUNNING after the 2 s wait limit", got.GetStatus())
	}
	delay.end() // the insert's work is done when end returns
	// A second wait sees it done.
	if got, err = ops.Wait(ctx, req); err != nil || got.GetStatus() != computepb.Operation_DONE {
		t.Errorf("second wait: status %v, error %v; want DONE", got.GetStatus(), err)
	}
	held.none(t)
}

func TestComputeOperationFailure(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setFaults(cloud.Faults{FailOperations: map[string]int{"insert": 1}})
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewResourcePoliciesRESTClient)
	name := "wp-fail"

	err := insertPolicy(ctx, c, dynamicSlicingPolicy(name))
	wantAPIError(t, err, http.StatusInternalServerError, "injected failure of a insert operation (sandbox fault)")
	if !strings.Contains(err.Error(), "INTERNAL_ERROR") {
		t.Errorf("error %q does not carry the operation's error code INTERNAL_ERROR", err)
	}
	_, err = getPolicy(ctx, c, name)
	wantAPIError(t, err, http.StatusNotFound, name)

	// The injected failure was used up: the next insert succeeds.
	if err := insertPolicy(ctx, c, dynamicSlicingPolicy(name)); err != nil {
		t.Fatalf("insert after the injected failure: %v", err)
	}
}
