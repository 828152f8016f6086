package clusterread

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Label names and partition states live in package wellknown; this file
// reads them off a node.

func firstLabel(n *corev1.Node, names []string) string {
	for _, name := range names {
		if v := n.Labels[name]; v != "" {
			return v
		}
	}
	return ""
}

// PartitionID is the node's 4x4x4 partition ID, under any of its label names.
func PartitionID(n *corev1.Node) string { return firstLabel(n, wellknown.PartitionIDLabels) }

// PartitionState is the node's 4x4x4 partition state, under any of its label names.
func PartitionState(n *corev1.Node) string { return firstLabel(n, wellknown.PartitionStateLabels) }

// NodeReady reports the node's Ready condition.
func NodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
