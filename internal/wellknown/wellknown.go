// Package wellknown is the one home of the names GKE, its slice controller
// and Kueue's slice admission check put on nodes and Slices: node labels
// and the values of the partition labels, Slice annotations and the Slice
// finalizer (GKE's Slice custom resource reference and its guides to
// dynamic slicing). It imports nothing, so that every layer (topology,
// engine, sandbox, provider) spells each name the same way.
package wellknown

// Node labels GKE puts on dynamic-slicing nodes, and the Kubernetes ones
// they carry.
const (
	LabelNodePool         = "cloud.google.com/gke-nodepool"
	LabelAccelerator      = "cloud.google.com/gke-tpu-accelerator"
	LabelTopologyMode     = "cloud.google.com/gke-accelerator-topology-mode"
	LabelTopologyBlock    = "cloud.google.com/gce-topology-block"
	LabelTopologySubBlock = "cloud.google.com/gce-topology-subblock"
	LabelTopologyHost     = "cloud.google.com/gce-topology-host"
	LabelInstanceType     = "node.kubernetes.io/instance-type"
	LabelZone             = "topology.kubernetes.io/zone"
	LabelHostname         = "kubernetes.io/hostname"
	// AnnotationCreatedByMIG names the managed instance group of a node.
	AnnotationCreatedByMIG = "node.gke.io/created-by-mig"
)

// Partition labels. Each partition shape has an ID and a state label,
// PartitionLabelPrefix + shape + "-id" and "-state" (topology.PartitionIDLabel
// and PartitionStateLabel); the 4x4x4 ones were renamed during preview, and
// nodes may still carry an older name.
const (
	PartitionLabelPrefix = "cloud.google.com/gke-tpu-partition-"
	LabelPartitionID     = PartitionLabelPrefix + "4x4x4-id"
	LabelPartitionState  = PartitionLabelPrefix + "4x4x4-state"
)

// PartitionIDLabels and PartitionStateLabels are the 4x4x4 partition
// label names, newest first.
var (
	PartitionIDLabels    = []string{LabelPartitionID, "cloud.google.com/gke-tpu-partition-id-4x4x4", "cloud.google.com/gke-tpu-slice-4x4x4-id"}
	PartitionStateLabels = []string{LabelPartitionState, "cloud.google.com/gke-tpu-partition-state-4x4x4", "cloud.google.com/gke-tpu-slice-4x4x4-state"}
)

// Partition states GKE publishes on the state labels. DEGRADED exists for
// 4x4x4 partitions only.
const (
	PartitionHealthy    = "HEALTHY"
	PartitionDegraded   = "DEGRADED"
	PartitionUnhealthy  = "UNHEALTHY"
	PartitionUnset      = "UNSET"
	PartitionIncomplete = "INCOMPLETE"
)

// Labels the slice controller puts on the nodes of a formed slice; a
// workload's node selector uses them, beside LabelAccelerator.
const (
	LabelSlice         = "cloud.google.com/gke-tpu-slice"
	LabelSliceTopology = "cloud.google.com/gke-tpu-topology"
)

// AnnotationSliceTopology is the pod annotation that carries the slice's
// topology.
const AnnotationSliceTopology = "cloud.google.com/gke-tpu-slice-topology"

// On Slices: the retry annotation, the controller's finalizer, and the
// owner annotations Kueue's slice admission check puts on the Slices it
// creates for the pod sets of admitted workloads.
const (
	AnnotationRetryOnFailure         = "slice.gke.io/retry-on-failure"
	SliceFinalizer                   = "accelerator.gke.io/slice-finalizer"
	AnnotationOwnerWorkloadNamespace = "accelerator.gke.io/owner-workload-namespace"
	AnnotationOwnerWorkloadName      = "accelerator.gke.io/owner-workload-name"
	AnnotationOwnerPodSet            = "accelerator.gke.io/owner-podset-name"
)

// GKE's TPU DRA driver (dynamic resource allocation of TPUs). A node pool
// opts into it with LabelTPUDRADriver=true among its node labels, which
// turns GKE's TPU device plugin off on its nodes: they have no
// ResourceTPU capacity, and the driver publishes their chips as devices of
// DriverTPU in ResourceSlices instead, claimed through the DeviceClass
// DeviceClassTPU. The driver cannot give part of a host: a claim takes
// every chip of its node (allocationMode All).
const (
	LabelTPUDRADriver = "cloud.google.com/gke-tpu-dra-driver"
	DriverTPU         = "tpu.google.com"
	DeviceClassTPU    = "tpu.google.com"
	// ResourceTPU is the extended resource of GKE's TPU device plugin.
	ResourceTPU = "google.com/tpu"
)
