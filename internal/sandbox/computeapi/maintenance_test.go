package computeapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

const (
	maintReservation = "tpu7x-reservation-2"
	maintBlock       = "block-c"
	maintParent      = "reservations/" + maintReservation + "/reservationBlocks/" + maintBlock
)

// getMaintSubBlock reads a sub-block of block-c through the Go client.
func getMaintSubBlock(ctx context.Context, t *testing.T, c *compute.ReservationSubBlocksClient, name string) *computepb.ReservationSubBlock {
	t.Helper()
	resp, err := c.Get(ctx, &computepb.GetReservationSubBlockRequest{Project: "sandbox-project", Zone: "us-central1-a", ParentName: maintParent, ReservationSubBlock: name})
	if err != nil {
		t.Fatal(err)
	}
	return resp.GetResource()
}

// maintenanceTestMs is how long the tests' maintenance lasts, as the
// fault says; the tests hold it (holdDelays) and end it themselves.
const maintenanceTestMs = 3000

// endMaintenance ends the held maintenance of the operation whose target
// ends with target, which must be ongoing: the maintenance is over when it
// returns.
func endMaintenance(t *testing.T, held *heldDelays, target string) {
	t.Helper()
	d := held.next(t)
	if !strings.HasSuffix(d.Of, target) || d.For != maintenanceTestMs*time.Millisecond {
		t.Errorf("the maintenance of %s is held for %s, want that of %s for the fault's %dms", d.Of, d.For, target, maintenanceTestMs)
	}
	d.end()
}

// Maintenance goes from PENDING (announced by the control endpoint) to
// ONGOING when performMaintenance starts it (the operation is done then,
// the hosts UNHEALTHY), and to none after Faults.MaintenanceMs.
func TestComputeSubBlockMaintenance(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The maintenance's end is held (Options.Delays): it is ONGOING after
	// the operation until the test ends it, and over once it has.
	e.setFaults(cloud.Faults{MaintenanceMs: maintenanceTestMs})
	maintenance := e.hold(cloud.DelayMaintenance)
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewReservationSubBlocksRESTClient)
	const name = "sub-block-c1"

	// Nothing pending: refused, as GCP refuses maintenance it has not planned.
	_, err := c.PerformMaintenance(ctx, &computepb.PerformMaintenanceReservationSubBlockRequest{Project: "sandbox-project", Zone: "us-central1-a", ParentName: maintParent, ReservationSubBlock: name})
	wantAPIError(t, err, http.StatusBadRequest, "There is no pending maintenance on reservation sub-block")
	if m := getMaintSubBlock(ctx, t, c, name).GetReservationSubBlockMaintenance(); m != nil {
		t.Fatalf("maintenance %v before any was announced", m)
	}

	if err := e.w.SetMaintenance(ctx, maintReservation, maintBlock, name, cloud.MaintenancePending); err != nil {
		t.Fatal(err)
	}
	m := getMaintSubBlock(ctx, t, c, name).GetReservationSubBlockMaintenance()
	if m.GetMaintenancePendingCount() != cloud.HostsPerSubBlock || m.GetUpcomingGroupMaintenance().GetMaintenanceStatus() != cloud.MaintenancePending ||
		m.GetUpcomingGroupMaintenance().GetWindowStartTime() == "" || !m.GetUpcomingGroupMaintenance().GetCanReschedule() {
		t.Fatalf("pending maintenance reported as %v", m)
	}
	blocks := newComputeClient(t, e, compute.NewReservationBlocksRESTClient)
	b, err := blocks.Get(ctx, &computepb.GetReservationBlockRequest{Project: "sandbox-project", Zone: "us-central1-a", Reservation: maintReservation, ReservationBlock: maintBlock})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.GetResource().GetReservationMaintenance().GetMaintenancePendingCount(); got != cloud.HostsPerSubBlock {
		t.Errorf("block maintenancePendingCount %d, want %d", got, cloud.HostsPerSubBlock)
	}

	op, err := c.PerformMaintenance(ctx, &computepb.PerformMaintenanceReservationSubBlockRequest{Project: "sandbox-project", Zone: "us-central1-a", ParentName: maintParent, ReservationSubBlock: name})
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if op.Proto().GetOperationType() != "performMaintenance" || op.Proto().GetZone() != testZoneLink {
		t.Errorf("operation %v", op.Proto())
	}
	s := getMaintSubBlock(ctx, t, c, name)
	if s.GetReservationSubBlockMaintenance().GetMaintenanceOngoingCount() != cloud.HostsPerSubBlock || s.GetHealthInfo().GetHealthStatus() != cloud.HostUnhealthy {
		t.Fatalf("after the operation: maintenance %v, health %v; want ongoing, UNHEALTHY", s.GetReservationSubBlockMaintenance(), s.GetHealthInfo())
	}
	endMaintenance(t, maintenance, "/reservationSubBlocks/"+name)
	if s := getMaintSubBlock(ctx, t, c, name); s.GetReservationSubBlockMaintenance() != nil || s.GetHealthInfo().GetHealthStatus() != cloud.HostHealthy {
		t.Errorf("after the maintenance: maintenance %v, health %v; want none, HEALTHY", s.GetReservationSubBlockMaintenance(), s.GetHealthInfo())
	}
	maintenance.none(t)
}

func TestComputeBlockMaintenanceRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setFaults(cloud.Faults{MaintenanceMs: maintenanceTestMs})
	maintenance := e.hold(cloud.DelayMaintenance)
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewReservationBlocksRESTClient)
	req := func(scope string) *computepb.PerformMaintenanceReservationBlockRequest {
		return &computepb.PerformMaintenanceReservationBlockRequest{Project: "sandbox-project", Zone: "us-central1-a", Reservation: maintReservation, ReservationBlock: maintBlock,
			ReservationsBlocksPerformMaintenanceRequestResource: &computepb.ReservationsBlocksPerformMaintenanceRequest{MaintenanceScope: proto.String(scope)}}
	}
	_, err := c.PerformMaintenance(ctx, req("EVERYTHING"))
	wantAPIError(t, err, http.StatusBadRequest, "Invalid value for field 'resource.maintenanceScope': 'EVERYTHING'")
	_, err = c.PerformMaintenance(ctx, req("ALL"))
	wantAPIError(t, err, http.StatusBadRequest, "There is no pending maintenance in scope ALL")
	missing := req("ALL")
	missing.ReservationBlock = "block-z"
	_, err = c.PerformMaintenance(ctx, missing)
	wantAPIError(t, err, http.StatusNotFound, "reservationBlocks/block-z' was not found")

	if err := e.w.SetMaintenance(ctx, maintReservation, maintBlock, "sub-block-c2", cloud.MaintenancePending); err != nil {
		t.Fatal(err)
	}
	// No pool uses sub-block-c2: RUNNING_VMS has nothing to do.
	_, err = c.PerformMaintenance(ctx, req("RUNNING_VMS"))
	wantAPIError(t, err, http.StatusBadRequest, "There is no pending maintenance in scope RUNNING_VMS")
	op, err := c.PerformMaintenance(ctx, req("UNUSED_CAPACITY"))
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if got := e.maintenanceOf("sub-block-c2"); got != cloud.MaintenanceOngoing {
		t.Fatalf("sub-block-c2 maintenance %q after the operation, want ONGOING", got)
	}
	if got := e.maintenanceOf("sub-block-c1"); got != "" {
		t.Errorf("sub-block-c1 (nothing pending) got maintenance %q", got)
	}
	endMaintenance(t, maintenance, "/reservationBlocks/"+maintBlock)
	subs := newComputeClient(t, e, compute.NewReservationSubBlocksRESTClient)
	if s := getMaintSubBlock(ctx, t, subs, "sub-block-c2"); s.GetReservationSubBlockMaintenance() != nil || s.GetHealthInfo().GetHealthStatus() != cloud.HostHealthy {
		t.Errorf("after the maintenance: maintenance %v, health %v; want none, HEALTHY", s.GetReservationSubBlockMaintenance(), s.GetHealthInfo())
	}
	maintenance.none(t)
}

// The control endpoint refuses what it cannot do.
func TestSetMaintenanceErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	if err := e.w.SetMaintenance(ctx, maintReservation, maintBlock, "sub-block-c9", cloud.MaintenancePending); err == nil {
		t.Error("SetMaintenance took a sub-block that is not in the inventory")
	}
	if err := e.w.SetMaintenance(ctx, maintReservation, maintBlock, "sub-block-c1", "SOON"); err == nil {
		t.Error("SetMaintenance took status SOON")
	}
}
