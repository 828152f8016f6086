package kernel

import "k8s.io/apimachinery/pkg/runtime/schema"

// SliceGVR is the Slice custom resource (accelerator.gke.io/v1beta1).
var SliceGVR = schema.GroupVersionResource{Group: "accelerator.gke.io", Version: "v1beta1", Resource: "slices"}

// The Kueue API the Kueue + TAS path uses.
const (
	KueueGroup   = "kueue.x-k8s.io"
	KueueVersion = "v1beta2"
)

// KueueGVR is the Kueue resource (topologies, resourceflavors, ...).
func KueueGVR(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: KueueGroup, Version: KueueVersion, Resource: resource}
}
