package sandbox

// Node labels and annotations GKE puts on dynamic-slicing nodes, and the
// names the slice controller uses (GKE's Slice custom resource reference
// and its guide to dynamic slicing with a custom scheduler).
const (
	LabelNodePool          = "cloud.google.com/gke-nodepool"
	LabelAccelerator       = "cloud.google.com/gke-tpu-accelerator"
	LabelTopologyMode      = "cloud.google.com/gke-accelerator-topology-mode"
	LabelPartitionID       = "cloud.google.com/gke-tpu-partition-4x4x4-id"
	LabelPartitionState    = "cloud.google.com/gke-tpu-partition-4x4x4-state"
	LabelTopologyBlock     = "cloud.google.com/gce-topology-block"
	LabelTopologySubBlock  = "cloud.google.com/gce-topology-subblock"
	LabelTopologyHost      = "cloud.google.com/gce-topology-host"
	LabelInstanceType      = "node.kubernetes.io/instance-type"
	LabelZone              = "topology.kubernetes.io/zone"
	LabelHostname          = "kubernetes.io/hostname"
	AnnotationCreatedByMIG = "node.gke.io/created-by-mig"

	// Added by the slice controller to the nodes of a formed slice.
	LabelSlice         = "cloud.google.com/gke-tpu-slice"
	LabelSliceTopology = "cloud.google.com/gke-tpu-topology"

	// On Slices.
	SliceFinalizer            = "accelerator.gke.io/slice-finalizer"
	AnnotationRetryOnFailure  = "slice.gke.io/retry-on-failure"
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

// Partition states on LabelPartitionState.
const (
	PartitionHealthy    = "HEALTHY"
	PartitionDegraded   = "DEGRADED"
	PartitionUnhealthy  = "UNHEALTHY"
	PartitionUnset      = "UNSET"
	PartitionIncomplete = "INCOMPLETE"
)

// MachineType is the only machine type dynamic slicing accepts.
const MachineType = "tpu7x-standard-4t"
