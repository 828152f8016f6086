package sandbox

// Slice condition types and the Ready condition's reasons (the slice
// states), as the slice controller writes them.
const (
	ConditionReady            = "Ready"
	ConditionCreationFailed   = "SliceCreationFailed"
	ReasonSliceNotCreated     = "SliceNotCreated"
	ReasonSliceCreationFailed = "SliceCreationFailed"
	ReasonActivating          = "ACTIVATING"
	ReasonActive              = "ACTIVE"
	ReasonActiveDegraded      = "ACTIVE_DEGRADED"
	ReasonFailed              = "FAILED"
	ReasonDeactivating        = "DEACTIVATING"
	ReasonIncomplete          = "INCOMPLETE"
)

// MachineType is the only machine type dynamic slicing accepts.
const MachineType = "tpu7x-standard-4t"

// GKE's node labels for host maintenance: the planned start of pending
// maintenance (Unix seconds), and ONGOING while maintenance runs.
const (
	LabelScheduledMaintenanceTime = "cloud.google.com/scheduled-maintenance-time"
	LabelActiveNodeMaintenance    = "cloud.google.com/active-node-maintenance"
)
