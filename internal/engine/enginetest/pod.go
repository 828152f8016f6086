package enginetest

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Partition fixtures: the nodes of sub-blocks and of a full pod, labelled
// as GKE labels them.

// SubID is the test ID of partition idx of the shape in sub-block sb.
func SubID(sb, shape string, idx int) string { return fmt.Sprintf("%s-%s-%d", sb, shape, idx) }

// SubBlockNodes are the 16 Ready nodes of sub-block sb (pool pool, block
// block) with the partition labels of every shape, nested as GKE nests
// them (topology.SubPartitionIndex).
func SubBlockNodes(sb, pool, block string) []*corev1.Node {
	nodes := make([]*corev1.Node, 0, topology.HostsPerPartition)
	for h := range topology.HostsPerPartition {
		labels := map[string]string{wellknown.LabelNodePool: pool, wellknown.LabelTopologyBlock: block, wellknown.LabelTopologySubBlock: sb}
		for _, shape := range topology.PartitionShapes {
			labels[topology.PartitionIDLabel(shape)] = SubID(sb, shape, topology.SubPartitionIndex(h, shape))
			labels[topology.PartitionStateLabel(shape)] = wellknown.PartitionHealthy
		}
		nodes = append(nodes, ReadyNode(fmt.Sprintf("%s-h%02d", pool, h), labels, true))
	}
	return nodes
}

// ReadyNode is a node with the labels, Ready or not.
func ReadyNode(name string, labels map[string]string, ready bool) *corev1.Node {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}},
	}
}

// FullPod is the nodes of a full Ironwood pod: 144 partitions of 16 nodes
// (2304 nodes) in one block, with the first slices partitions labelled.
func FullPod(slices int) ([]*corev1.Node, map[string]string) {
	nodes := make([]*corev1.Node, 0, 2304)
	users := map[string]string{}
	for p := 0; p < 144; p++ {
		id := fmt.Sprintf("%032x", p)
		if p < slices {
			users[id] = fmt.Sprintf("slice-%d", p)
		}
		for h := 0; h < 16; h++ {
			nodes = append(nodes, ReadyNode(fmt.Sprintf("gke-pool-%03d-h%02d", p, h), map[string]string{
				"cloud.google.com/gke-tpu-partition-4x4x4-id":    id,
				"cloud.google.com/gke-tpu-partition-4x4x4-state": wellknown.PartitionHealthy,
				wellknown.LabelNodePool:                          fmt.Sprintf("pool-%03d", p),
				wellknown.LabelTopologyBlock:                     "pod-block",
				wellknown.LabelTopologySubBlock:                  fmt.Sprintf("sb-%03d", p),
			}, true))
		}
	}
	return nodes, users
}

// FullPodAllShapes is a full pod (144 sub-blocks, 2304 nodes) whose nodes
// carry the partition labels of every shape, with slices holding part of
// it: 64 sub-blocks under 4x4x4 slices and, in 40 more, a 2x4x4 and a
// 2x2x2 sub-slice each (fragmented sub-blocks), the last 40 whole.
func FullPodAllShapes() ([]*corev1.Node, []*unstructured.Unstructured) {
	nodes := make([]*corev1.Node, 0, 2304)
	var slices []*unstructured.Unstructured
	for p := range 144 {
		sb := fmt.Sprintf("sb-%03d", p)
		nodes = append(nodes, SubBlockNodes(sb, "pool-"+sb, "pod-block")...)
		switch {
		case p < 64:
			slices = append(slices, Slice(fmt.Sprintf("train-%d", p), SubID(sb, "4x4x4", 0)))
		case p < 104:
			slices = append(slices, Slice(fmt.Sprintf("serve-big-%d", p), SubID(sb, "2x4x4", 0)),
				Slice(fmt.Sprintf("serve-small-%d", p), SubID(sb, "2x2x2", 4)))
		}
	}
	return nodes, slices
}
