package slicecontroller

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func (c *Controller) partitionNodes(id string) []*corev1.Node {
	items, _ := c.nodeIndex.ByIndex(partitionIndex, id)
	nodes := make([]*corev1.Node, 0, len(items))
	for _, it := range items {
		if n, ok := it.(*corev1.Node); ok {
			nodes = append(nodes, n)
		}
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	return nodes
}

// labelNodes adds (or removes) the slice labels on the nodes of the
// slice's partitions. Removal only touches nodes labelled with this slice.
func (c *Controller) labelNodes(ctx context.Context, v View, add bool) error {
	for _, id := range v.Partitions {
		for _, n := range c.partitionNodes(id) {
			var patch string
			switch {
			case add && (n.Labels[wellknown.LabelSlice] != v.Name || n.Labels[wellknown.LabelSliceTopology] != v.Topology):
				patch = fmt.Sprintf(`{"metadata":{"labels":{%q:%q,%q:%q}}}`, wellknown.LabelSlice, v.Name, wellknown.LabelSliceTopology, v.Topology)
			case !add && n.Labels[wellknown.LabelSlice] == v.Name:
				patch = fmt.Sprintf(`{"metadata":{"labels":{%q:null,%q:null}}}`, wellknown.LabelSlice, wellknown.LabelSliceTopology)
			default:
				continue
			}
			if _, err := c.kube.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
	}
	return nil
}

// NodeLabels are the labels of the named node as the controller's cache
// holds them, or nil when it holds no such node.
func (c *Controller) NodeLabels(name string) map[string]string {
	item, ok, _ := c.nodeIndex.GetByKey(name)
	if n, isNode := item.(*corev1.Node); ok && isNode {
		return n.Labels
	}
	return nil
}

// nodeReady reports whether the node's Ready condition is True.
func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
