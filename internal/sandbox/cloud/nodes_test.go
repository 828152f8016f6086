package cloud

import (
	"strconv"
	"testing"
	"time"
)

// A node that registers on a sub-block with maintenance announced or in
// progress carries GKE's maintenance label from the start (a pool created
// after the announcement), and none without maintenance.
func TestNewNodeCarriesMaintenanceLabels(t *testing.T) {
	t.Parallel()
	w := &World{Inv: &Inventory{Cluster: "c", Zone: "us-central1-a", Project: "p", ProjectNumber: "1"}}
	window := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		maint      MaintenanceState
		label, val string
	}{
		{MaintenanceState{Status: MaintenancePending, WindowStart: window}, LabelScheduledMaintenanceTime, strconv.FormatInt(window.Unix(), 10)},
		{MaintenanceState{Status: MaintenanceOngoing}, LabelActiveNodeMaintenance, MaintenanceOngoing},
		{MaintenanceState{}, "", ""},
	} {
		snap := hostSnapshot{pool: "pool", nodeCount: 16, subBlock: SubBlockState{Reservation: "r", Block: "b", Name: "s", Maint: tc.maint}}
		n := w.newNode(snap, 0, nil)
		for _, l := range []string{LabelScheduledMaintenanceTime, LabelActiveNodeMaintenance} {
			got, has := n.Labels[l]
			if want := l == tc.label; has != want || (want && got != tc.val) {
				t.Errorf("maintenance %q: label %s = %q (set %v), want set %v to %q", tc.maint.Status, l, got, has, want, tc.val)
			}
		}
	}
}
