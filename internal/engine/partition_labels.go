package engine

import corev1 "k8s.io/api/core/v1"

// Node labels GKE puts on dynamic-slicing nodes (REFERENCE.md).
const (
	LabelNodePool         = "cloud.google.com/gke-nodepool"
	LabelTopologySubBlock = "cloud.google.com/gce-topology-subblock"
	LabelTopologyBlock    = "cloud.google.com/gce-topology-block"
)

// Partition label names of 4x4x4 partitions, newest first: GKE renamed
// them during preview. The sub-slice shapes have only the current form
// (topology.PartitionIDLabel).
var (
	partitionIDLabels    = []string{"cloud.google.com/gke-tpu-partition-4x4x4-id", "cloud.google.com/gke-tpu-partition-id-4x4x4", "cloud.google.com/gke-tpu-slice-4x4x4-id"}
	partitionStateLabels = []string{"cloud.google.com/gke-tpu-partition-4x4x4-state", "cloud.google.com/gke-tpu-partition-state-4x4x4", "cloud.google.com/gke-tpu-slice-4x4x4-state"}
)

// Partition states GKE publishes.
const (
	PartitionHealthy    = "HEALTHY"
	PartitionDegraded   = "DEGRADED"
	PartitionUnhealthy  = "UNHEALTHY"
	PartitionUnset      = "UNSET"
	PartitionIncomplete = "INCOMPLETE"
)

func firstLabel(n *corev1.Node, names []string) string {
	for _, name := range names {
		if v := n.Labels[name]; v != "" {
			return v
		}
	}
	return ""
}

// partitionID is the node's 4x4x4 partition ID, under any of its label names.
func partitionID(n *corev1.Node) string { return firstLabel(n, partitionIDLabels) }

// partitionState is the node's 4x4x4 partition state, under any of its label names.
func partitionState(n *corev1.Node) string { return firstLabel(n, partitionStateLabels) }

// nodeReady reports the node's Ready condition.
func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
