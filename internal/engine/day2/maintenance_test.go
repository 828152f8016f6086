package day2

import (
	"errors"
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

func TestPickMaintenance(t *testing.T) {
	t.Parallel()
	maint := []reservation.SubBlockMaintenance{{SubBlock: "a1", Status: reservation.MaintenancePending}, {SubBlock: "a2", Status: reservation.MaintenanceOngoing}, {SubBlock: "a3", Status: reservation.MaintenanceNone}}
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
	t.Parallel()
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
