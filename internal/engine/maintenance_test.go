package engine

import (
	"errors"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"
)

func TestMaintenanceOf(t *testing.T) {
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

func TestPickMaintenance(t *testing.T) {
	maint := []SubBlockMaintenance{{SubBlock: "a1", Status: MaintenancePending}, {SubBlock: "a2", Status: MaintenanceOngoing}, {SubBlock: "a3", Status: MaintenanceNone}}
	got, err := pickMaintenance(maint, "", "block")
	if err != nil || len(got) != 1 || got[0].SubBlock != "a1" {
		t.Errorf("block: %v, %v; want a1", got, err)
	}
	if got, err := pickMaintenance(maint, "a1", "a1"); err != nil || len(got) != 1 {
		t.Errorf("a1: %v, %v", got, err)
	}
	var none *NoPendingMaintenanceError
	if _, err := pickMaintenance(maint, "a2", "sub-block a2"); !errors.As(err, &none) || !strings.Contains(err.Error(), "already in progress on a2") {
		t.Errorf("a2 (ongoing): %v", err)
	}
	if _, err := pickMaintenance(maint, "a3", "sub-block a3"); !errors.As(err, &none) || !strings.Contains(err.Error(), "gke_reservation_sub_blocks") {
		t.Errorf("a3 (none): %v", err)
	}
	if _, err := pickMaintenance(maint, "a9", "sub-block a9"); err == nil || errors.As(err, &none) {
		t.Errorf("a9 (missing): %v", err)
	}
	if _, err := pickMaintenance(maint[1:], "", "block"); !errors.As(err, &none) {
		t.Errorf("block without pending: %v", err)
	}
}

func TestSubBlocksInUseError(t *testing.T) {
	err := &SubBlocksInUseError{Target: "reservation sub-block r/b/s1", Uses: []SubBlockUse{{SubBlock: "s1", NodePool: "pool-1", Slices: []string{"train-a", "train-b"}}}}
	msg := err.Error()
	for _, want := range []string{"s1: slice(s) train-a, train-b and node pool pool-1", "drain = true", "next terraform apply recreates"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not say %q", msg, want)
		}
	}
	if (SubBlockUse{SubBlock: "s2"}).InUse() {
		t.Error("a sub-block with nothing on it is in use")
	}
}
