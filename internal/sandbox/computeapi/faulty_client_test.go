package computeapi_test

import (
	"net/http"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

func faultyRequest(component, schedule string, behaviors ...string) *computepb.ReportFaultyReservationSubBlockRequest {
	body := &computepb.ReservationSubBlocksReportFaultyRequest{}
	if component != "" {
		body.FailureComponent = proto.String(component)
	}
	if schedule != "" {
		body.DisruptionSchedule = proto.String(schedule)
	}
	for _, b := range behaviors {
		body.FaultReasons = append(body.FaultReasons, &computepb.ReservationSubBlocksReportFaultyRequestFaultReason{Behavior: proto.String(b), Description: proto.String("test")})
	}
	return &computepb.ReportFaultyReservationSubBlockRequest{Project: "sandbox-project", Zone: "us-central1-a", ParentName: maintParent,
		ReservationSubBlock: "sub-block-c2", ReservationSubBlocksReportFaultyRequestResource: body}
}

// reportFaulty checks its body as GCP does, turns the sub-block's hosts
// UNHEALTHY, and the sandbox repairs them after Faults.FaultyRepairMs. The
// test holds the repair's delay (Options.Delays): the hosts are UNHEALTHY
// until it ends, and HEALTHY once it has.
func TestComputeReportSubBlockFaulty(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setFaults(cloud.Faults{FaultyRepairMs: 3000})
	repair := e.hold(cloud.DelayRepair)
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewReservationSubBlocksRESTClient)
	for _, tc := range []struct {
		req  *computepb.ReportFaultyReservationSubBlockRequest
		want string
	}{
		{faultyRequest("", "IMMEDIATE", "PERFORMANCE"), "Required field 'resource.failureComponent' not specified"},
		{faultyRequest("ONE_HOST", "IMMEDIATE", "PERFORMANCE"), "Invalid value for field 'resource.failureComponent': 'ONE_HOST'"},
		{faultyRequest("MULTIPLE_FAULTY_HOSTS", "", "PERFORMANCE"), "Required field 'resource.disruptionSchedule' not specified"},
		{faultyRequest("MULTIPLE_FAULTY_HOSTS", "LATER", "PERFORMANCE"), "Invalid value for field 'resource.disruptionSchedule': 'LATER'"},
		{faultyRequest("MULTIPLE_FAULTY_HOSTS", "IMMEDIATE"), "Required field 'resource.faultReasons' not specified"},
		{faultyRequest("MULTIPLE_FAULTY_HOSTS", "IMMEDIATE", "PERFORMANCE", "CHIP_ERROR"), "Invalid value for field 'resource.faultReasons[1].behavior': 'CHIP_ERROR'"},
	} {
		_, err := c.ReportFaulty(ctx, tc.req)
		wantAPIError(t, err, http.StatusBadRequest, tc.want)
	}
	missing := faultyRequest("MULTIPLE_FAULTY_HOSTS", "IMMEDIATE", "PERFORMANCE")
	missing.ReservationSubBlock = "sub-block-c9"
	_, err := c.ReportFaulty(ctx, missing)
	wantAPIError(t, err, http.StatusNotFound, "reservationSubBlocks/sub-block-c9' was not found")

	op, err := c.ReportFaulty(ctx, faultyRequest("MULTIPLE_FAULTY_HOSTS", "IMMEDIATE", "SILENT_DATA_CORRUPTION"))
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if op.Proto().GetOperationType() != "reportFaulty" || op.Proto().GetError() != nil {
		t.Errorf("operation %v", op.Proto())
	}
	delay := repair.next(t) // taken by the operation, which is done
	if want := maintReservation + "/" + maintBlock + "/sub-block-c2"; delay.Of != want || delay.For != 3*time.Second {
		t.Errorf("the repair of %s is held for %s, want %s for the fault's 3s", delay.Of, delay.For, want)
	}
	s := getMaintSubBlock(ctx, t, c, "sub-block-c2")
	if h := s.GetHealthInfo(); h.GetHealthStatus() != cloud.HostUnhealthy || h.GetHealthyHostCount() != 0 {
		t.Fatalf("after reportFaulty: health %v; want UNHEALTHY, no healthy host", h)
	}
	delay.end() // the hosts are repaired when end returns
	if h := getMaintSubBlock(ctx, t, c, "sub-block-c2").GetHealthInfo(); h.GetHealthStatus() != cloud.HostHealthy {
		t.Errorf("after the repair: health %v; want HEALTHY", h)
	}
	repair.none(t)
}

// reportHostAsFaulty names an instance: one that is no node of a sandbox
// pool is a 404, and its body is checked as GCP checks it.
func TestComputeReportHostAsFaultyRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewInstancesRESTClient)
	req := func(instance, schedule, behavior string) *computepb.ReportHostAsFaultyInstanceRequest {
		body := &computepb.InstancesReportHostAsFaultyRequest{FaultReasons: []*computepb.InstancesReportHostAsFaultyRequestFaultReason{{Behavior: proto.String(behavior)}}}
		if schedule != "" {
			body.DisruptionSchedule = proto.String(schedule)
		}
		return &computepb.ReportHostAsFaultyInstanceRequest{Project: "sandbox-project", Zone: "us-central1-a", Instance: instance, InstancesReportHostAsFaultyRequestResource: body}
	}
	_, err := c.ReportHostAsFaulty(ctx, req("no-such-vm", "IMMEDIATE", "CHIP_ERROR"))
	wantAPIError(t, err, http.StatusNotFound, "projects/sandbox-project/zones/us-central1-a/instances/no-such-vm' was not found")
}
