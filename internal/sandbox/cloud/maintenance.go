package cloud

import (
	"strconv"
	"time"
)

// Maintenance states of a sub-block, as UpcomingMaintenance.maintenanceStatus
// names them.
const (
	MaintenancePending = "PENDING"
	MaintenanceOngoing = "ONGOING"
)

// MaintenanceState is a sub-block's maintenance and faults.
type MaintenanceState struct {
	// Status is "", MaintenancePending or MaintenanceOngoing.
	Status string
	// WindowStart is when pending maintenance is planned to start, or when
	// ongoing maintenance started.
	WindowStart time.Time
	// FaultGen counts reported faults, so that a repair applies only to
	// the latest.
	FaultGen int
}

// PendingMaintenance is maintenance announced at now: planned a week
// later, reschedulable by the customer.
func PendingMaintenance(now time.Time) MaintenanceState {
	return MaintenanceState{Status: MaintenancePending, WindowStart: now.Add(7 * 24 * time.Hour).UTC().Truncate(time.Second)}
}

// GKE's node labels for host maintenance: the planned start of pending
// maintenance (Unix seconds), and ONGOING while maintenance runs.
const (
	LabelScheduledMaintenanceTime = "cloud.google.com/scheduled-maintenance-time"
	LabelActiveNodeMaintenance    = "cloud.google.com/active-node-maintenance"
)

// MaintenanceLabels are GKE's maintenance labels of a node on a sub-block
// with maintenance m: none without maintenance.
func MaintenanceLabels(m MaintenanceState) map[string]string {
	switch m.Status {
	case MaintenancePending:
		return map[string]string{LabelScheduledMaintenanceTime: strconv.FormatInt(m.WindowStart.Unix(), 10)}
	case MaintenanceOngoing:
		return map[string]string{LabelActiveNodeMaintenance: MaintenanceOngoing}
	}
	return nil
}
