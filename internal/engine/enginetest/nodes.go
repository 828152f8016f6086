package enginetest

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// NodeOpt shapes a test node.
type NodeOpt func(*corev1.Node)

// Node is a node of pool; without options it is NotReady and has no
// Partition labels.
func Node(name, pool string, opts ...NodeOpt) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{wellknown.LabelNodePool: pool}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse},
			{Type: corev1.NodeReady, Status: corev1.ConditionFalse},
		}},
	}
	for _, o := range opts {
		o(n)
	}
	return n
}

func Ready(n *corev1.Node) {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			n.Status.Conditions[i].Status = corev1.ConditionTrue
		}
	}
}

// Partition labels the node with the newest partition label names.
func Partition(id, state string) NodeOpt {
	return Labelled(wellknown.PartitionIDLabels[0], id, wellknown.PartitionStateLabels[0], state)
}

func Labelled(kv ...string) NodeOpt {
	return func(n *corev1.Node) {
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func OnSubBlock(physical string) NodeOpt { return Labelled(wellknown.LabelTopologySubBlock, physical) }

// Slice is a Slice object holding the given partitions.
func Slice(name string, ids ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "accelerator.gke.io/v1beta1",
		"kind":       "Slice",
		"metadata":   map[string]any{"name": name},
		"spec":       map[string]any{"type": "tpu7x", "topology": "4x4x4"},
	}}
	_ = unstructured.SetNestedStringSlice(u.Object, ids, "spec", "partitionIds")
	return u
}

// Topo is the tpu7x topology s, parsed.
func Topo(t *testing.T, s string) topology.Topology {
	t.Helper()
	topo, err := topology.ParseTPU7x(s)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// PlanNodes are one node per partition: pools np-1..np-4 in block b1 (np-3
// DEGRADED, np-4 not Ready) and np-5 in block b2.
func PlanNodes() []*corev1.Node {
	node := func(pool, id, block, state string, isReady bool) *corev1.Node {
		opts := []NodeOpt{Partition(id, state), Labelled(wellknown.LabelTopologyBlock, block)}
		if isReady {
			opts = append(opts, Ready)
		}
		return Node(pool+"-0", pool, opts...)
	}
	return []*corev1.Node{
		node("np-1", "p1", "b1", wellknown.PartitionHealthy, true),
		node("np-2", "p2", "b1", wellknown.PartitionHealthy, true),
		node("np-3", "p3", "b1", wellknown.PartitionDegraded, true),
		node("np-4", "p4", "b1", wellknown.PartitionHealthy, false),
		node("np-5", "p5", "b2", wellknown.PartitionHealthy, true),
	}
}

// SliceWithState is a Slice object of resource version rv whose Ready
// condition has the reason state (True when state is ACTIVE).
func SliceWithState(name, state, rv string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "accelerator.gke.io/v1beta1", "kind": "Slice",
		"metadata": map[string]any{"name": name, "resourceVersion": rv},
		"status":   map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": map[bool]string{true: "True", false: "False"}[state == "ACTIVE"], "reason": state}}},
	}}
}
