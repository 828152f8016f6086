package sandbox

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
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

// maintenanceTestMs is how long the tests' maintenance lasts.
const maintenanceTestMs = 3000

// awaitSubBlock polls a sub-block until ok says so, for at most 20 s.
func awaitSubBlock(ctx context.Context, t *testing.T, c *compute.ReservationSubBlocksClient, name, what string, ok func(*computepb.ReservationSubBlock) bool) {
	t.Helper()
	testsupport.Poll(t, 20*time.Second, 50*time.Millisecond, fmt.Sprintf("sub-block %s to become %s", name, what), func() (bool, string, error) {
		s := getMaintSubBlock(ctx, t, c, name)
		return ok(s), fmt.Sprintf("sub-block %s never became %s: %v", name, what, s), nil
	})
}

// Maintenance goes from PENDING (announced by the control endpoint) to
// ONGOING when performMaintenance starts it (the operation is done then,
// the hosts UNHEALTHY), and to none after Faults.MaintenanceMs.
func TestComputeSubBlockMaintenance(t *testing.T) {
	needSandbox(t)
	// Long enough that the ONGOING check after the operation cannot miss
	// it on a loaded machine (500 ms did once, in CI), short next to the
	// 20 s that the end is awaited.
	withFaults(t, Faults{MaintenanceMs: maintenanceTestMs})
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewReservationSubBlocksRESTClient)
	const name = "sub-block-c1"

	// Nothing pending: refused, as GCP refuses maintenance it has not planned.
	_, err := c.PerformMaintenance(ctx, &computepb.PerformMaintenanceReservationSubBlockRequest{Project: "sandbox-project", Zone: "us-central1-a", ParentName: maintParent, ReservationSubBlock: name})
	wantAPIError(t, err, http.StatusBadRequest, "There is no pending maintenance on reservation sub-block")
	if m := getMaintSubBlock(ctx, t, c, name).GetReservationSubBlockMaintenance(); m != nil {
		t.Fatalf("maintenance %v before any was announced", m)
	}

	if err := testSandbox.SetMaintenance(ctx, maintReservation, maintBlock, name, MaintenancePending); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = testSandbox.SetMaintenance(context.Background(), maintReservation, maintBlock, name, "") })
	m := getMaintSubBlock(ctx, t, c, name).GetReservationSubBlockMaintenance()
	if m.GetMaintenancePendingCount() != HostsPerSubBlock || m.GetUpcomingGroupMaintenance().GetMaintenanceStatus() != MaintenancePending ||
		m.GetUpcomingGroupMaintenance().GetWindowStartTime() == "" || !m.GetUpcomingGroupMaintenance().GetCanReschedule() {
		t.Fatalf("pending maintenance reported as %v", m)
	}
	blocks := newComputeClient(t, compute.NewReservationBlocksRESTClient)
	b, err := blocks.Get(ctx, &computepb.GetReservationBlockRequest{Project: "sandbox-project", Zone: "us-central1-a", Reservation: maintReservation, ReservationBlock: maintBlock})
	if err != nil {
		t.Fatal(err)
	}
	if got := b.GetResource().GetReservationMaintenance().GetMaintenancePendingCount(); got != HostsPerSubBlock {
		t.Errorf("block maintenancePendingCount %d, want %d", got, HostsPerSubBlock)
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
	if s.GetReservationSubBlockMaintenance().GetMaintenanceOngoingCount() != HostsPerSubBlock || s.GetHealthInfo().GetHealthStatus() != HostUnhealthy {
		t.Fatalf("after the operation: maintenance %v, health %v; want ongoing, UNHEALTHY", s.GetReservationSubBlockMaintenance(), s.GetHealthInfo())
	}
	awaitSubBlock(ctx, t, c, name, "HEALTHY without maintenance", func(s *computepb.ReservationSubBlock) bool {
		return s.GetReservationSubBlockMaintenance() == nil && s.GetHealthInfo().GetHealthStatus() == HostHealthy
	})
}

func TestComputeBlockMaintenanceRequests(t *testing.T) {
	needSandbox(t)
	withFaults(t, Faults{MaintenanceMs: maintenanceTestMs})
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewReservationBlocksRESTClient)
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

	if err := testSandbox.SetMaintenance(ctx, maintReservation, maintBlock, "sub-block-c2", MaintenancePending); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = testSandbox.SetMaintenance(context.Background(), maintReservation, maintBlock, "sub-block-c2", "")
	})
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
	if got := testSandbox.MaintenanceOf(maintReservation, maintBlock, "sub-block-c2"); got != MaintenanceOngoing {
		t.Fatalf("sub-block-c2 maintenance %q after the operation, want ONGOING", got)
	}
	if got := testSandbox.MaintenanceOf(maintReservation, maintBlock, "sub-block-c1"); got != "" {
		t.Errorf("sub-block-c1 (nothing pending) got maintenance %q", got)
	}
	subs := newComputeClient(t, compute.NewReservationSubBlocksRESTClient)
	awaitSubBlock(ctx, t, subs, "sub-block-c2", "done with maintenance", func(s *computepb.ReservationSubBlock) bool {
		return s.GetReservationSubBlockMaintenance() == nil && s.GetHealthInfo().GetHealthStatus() == HostHealthy
	})
}

// The control endpoint refuses what it cannot do.
func TestSetMaintenanceErrors(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	if err := testSandbox.SetMaintenance(ctx, maintReservation, maintBlock, "sub-block-c9", MaintenancePending); err == nil {
		t.Error("SetMaintenance took a sub-block that is not in the inventory")
	}
	if err := testSandbox.SetMaintenance(ctx, maintReservation, maintBlock, "sub-block-c1", "SOON"); err == nil {
		t.Error("SetMaintenance took status SOON")
	}
}

func TestInventoryMaintenance(t *testing.T) {
	_, err := ParseInventory([]byte("project: p\nprojectNumber: '1'\nregion: r\nzone: z\ncluster: c\nreservations:\n- name: r\n  blocks:\n  - name: b\n    subBlocks:\n    - name: s\n      maintenance: LATER\n"))
	if err == nil {
		t.Fatal("an inventory with maintenance LATER was accepted")
	}
	inv, err := ParseInventory([]byte("project: p\nprojectNumber: '1'\nregion: r\nzone: z\ncluster: c\nreservations:\n- name: r\n  blocks:\n  - name: b\n    subBlocks:\n    - name: s\n      maintenance: PENDING\n"))
	if err != nil {
		t.Fatal(err)
	}
	if st := cloud.NewSubBlockStates(inv); st[0].Maint.Status != MaintenancePending || st[0].Maint.WindowStart.IsZero() {
		t.Errorf("state %+v; want maintenance PENDING with a window", st[0].Maint)
	}
}
