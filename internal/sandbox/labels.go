package sandbox

import (
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
)

// Slice condition types and the Ready condition's reasons (the slice
// states), as the slice controller writes them (package slicecontroller).
const (
	ConditionReady            = slicecontroller.ConditionReady
	ConditionCreationFailed   = slicecontroller.ConditionCreationFailed
	ReasonSliceNotCreated     = slicecontroller.ReasonSliceNotCreated
	ReasonSliceCreationFailed = slicecontroller.ReasonSliceCreationFailed
	ReasonActivating          = slicecontroller.ReasonActivating
	ReasonActive              = slicecontroller.ReasonActive
	ReasonActiveDegraded      = slicecontroller.ReasonActiveDegraded
	ReasonFailed              = slicecontroller.ReasonFailed
	ReasonDeactivating        = slicecontroller.ReasonDeactivating
	ReasonIncomplete          = slicecontroller.ReasonIncomplete
)

// SliceGVR is the Slice resource the slice controller serves.
var SliceGVR = slicecontroller.SliceGVR

// MachineType is the only machine type dynamic slicing accepts.
const MachineType = cloud.MachineType

// GKE's node labels for host maintenance: the planned start of pending
// maintenance (Unix seconds), and ONGOING while maintenance runs.
const (
	LabelScheduledMaintenanceTime = cloud.LabelScheduledMaintenanceTime
	LabelActiveNodeMaintenance    = cloud.LabelActiveNodeMaintenance
)
