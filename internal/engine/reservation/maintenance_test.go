package reservation

import (
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"
)

func TestMaintenanceOf(t *testing.T) {
	t.Parallel()
	sub := func(m *computepb.GroupMaintenanceInfo) *computepb.ReservationSubBlock {
		return &computepb.ReservationSubBlock{Name: proto.String("s1"), PhysicalTopology: &computepb.ReservationSubBlockPhysicalTopology{SubBlock: proto.String("abc")},
			ReservationSubBlockMaintenance: m}
	}
	if got := maintenanceOf(sub(nil)); got.Status != MaintenanceNone || got.Affected() || got.PhysicalSubBlock != "abc" {
		t.Errorf("no maintenance read as %+v", got)
	}
	pending := maintenanceOf(sub(&computepb.GroupMaintenanceInfo{MaintenancePendingCount: proto.Int32(16),
		UpcomingGroupMaintenance: &computepb.UpcomingMaintenance{MaintenanceStatus: proto.String("PENDING"), WindowStartTime: proto.String("2026-12-01T00:00:00Z"), CanReschedule: proto.Bool(true)}}))
	if pending.Status != MaintenancePending || pending.PendingHosts != 16 || pending.WindowStart != "2026-12-01T00:00:00Z" || !pending.CanReschedule {
		t.Errorf("pending maintenance read as %+v", pending)
	}
	// Counts alone say it, and ongoing wins over pending.
	if got := maintenanceOf(sub(&computepb.GroupMaintenanceInfo{MaintenancePendingCount: proto.Int32(4), MaintenanceOngoingCount: proto.Int32(12)})); got.Status != MaintenanceOngoing {
		t.Errorf("ongoing maintenance read as %+v", got)
	}
	// A group info with nothing pending or ongoing is no maintenance.
	if got := maintenanceOf(sub(&computepb.GroupMaintenanceInfo{SchedulingType: proto.String("GROUPED")})); got.Affected() {
		t.Errorf("empty maintenance info read as %+v", got)
	}
}
