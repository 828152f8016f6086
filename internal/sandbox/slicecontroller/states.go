package slicecontroller

import "k8s.io/apimachinery/pkg/runtime/schema"

// SliceGVR is the Slice resource the controller serves.
var SliceGVR = schema.GroupVersionResource{Group: "accelerator.gke.io", Version: "v1beta1", Resource: "slices"}

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
