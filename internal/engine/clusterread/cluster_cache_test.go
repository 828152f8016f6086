package clusterread

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The inventory finds a pool's nodes through its index, and other label
// queries by a scan.
func TestInventoryNodesByPool(t *testing.T) {
	t.Parallel()
	nodes, _ := enginetest.FullPod(0)
	inv := Fixed(nodes, nil)
	got, err := inv.Nodes(t.Context(), map[string]string{wellknown.LabelNodePool: "pool-007", wellknown.LabelTopologySubBlock: "sb-007"})
	if err != nil || len(got) != 16 {
		t.Fatalf("pool-007: %d nodes, %v; want 16", len(got), err)
	}
	for i, n := range got {
		if n.Labels[wellknown.LabelNodePool] != "pool-007" || (i > 0 && got[i-1].Name >= n.Name) {
			t.Errorf("node %d: %s of %s (want pool-007, sorted by name)", i, n.Name, n.Labels[wellknown.LabelNodePool])
		}
	}
	if got, _ := inv.Nodes(t.Context(), map[string]string{wellknown.LabelNodePool: "pool-007", wellknown.LabelTopologySubBlock: "sb-008"}); len(got) != 0 {
		t.Errorf("pool-007 on sb-008: %d nodes, want 0", len(got))
	}
	if got, _ := inv.Nodes(t.Context(), map[string]string{wellknown.LabelTopologySubBlock: "sb-008"}); len(got) != 16 {
		t.Errorf("sb-008: %d nodes, want 16", len(got))
	}
	if got, _ := inv.Nodes(t.Context(), nil); len(got) != 2304 {
		t.Errorf("all: %d nodes, want 2304", len(got))
	}
}

// Stop ends the inventory's watches; the next read starts new ones, which
// list what changed in between.
func TestInventoryStopAndRestart(t *testing.T) {
	t.Parallel()
	kube, watching := enginetest.NewKube(enginetest.Node("n-0", "pool-a"))
	inv := newInventory(t, kube)
	if got, err := inv.Nodes(t.Context(), nil); err != nil || len(got) != 1 {
		t.Fatalf("before Stop: %d nodes, %v; want 1", len(got), err)
	}
	<-watching
	stopped := inv.nodes
	inv.Stop()
	inv.Stop() // a second Stop is a no-op
	if _, err := kube.CoreV1().Nodes().Create(t.Context(), enginetest.Node("n-1", "pool-a"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := inv.Nodes(t.Context(), nil)
	if err != nil || len(got) != 2 {
		t.Fatalf("after a restart: %d nodes, %v; want 2", len(got), err)
	}
	if stopped == inv.nodes {
		t.Error("the restarted inventory reads the stopped informer's cache")
	}
}

// The node cache keeps what the engine reads (labels, taints, capacity,
// conditions) and drops managed fields and image lists.
func TestSlimNode(t *testing.T) {
	t.Parallel()
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: map[string]string{"a": "b"}, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}},
		Spec:       corev1.NodeSpec{Taints: []corev1.Taint{{Key: "google.com/tpu", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{
			Images:     []corev1.ContainerImage{{Names: []string{"gcr.io/x"}, SizeBytes: 1}},
			Capacity:   corev1.ResourceList{"google.com/tpu": resource.MustParse("4")},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
		},
	}
	out, err := slimNode(n)
	got, ok := out.(*corev1.Node)
	if err != nil || !ok {
		t.Fatalf("slimNode: %T, %v", out, err)
	}
	if got.ManagedFields != nil || got.Status.Images != nil {
		t.Errorf("managed fields %v, images %v: want both dropped", got.ManagedFields, got.Status.Images)
	}
	if got.Labels["a"] != "b" || len(got.Spec.Taints) != 1 || got.Status.Capacity.Name("google.com/tpu", resource.DecimalSI).Value() != 4 || len(got.Status.Conditions) != 1 {
		t.Errorf("kept: %+v", got)
	}
	if other, err := slimNode("not a node"); err != nil || other != "not a node" {
		t.Errorf("a non-node: %v, %v", other, err)
	}
}

// newInventory is an inventory over kube and no Slices; it stops when the
// test ends.
func newInventory(t *testing.T, kube kubernetes.Interface) *Inventory {
	t.Helper()
	inv := NewInventory(kernel.NewCluster(kube, enginetest.NewDynamic()), Options{})
	t.Cleanup(inv.Stop)
	return inv
}

// A refresh of a full pod reads each of the 144 pools' nodes.
func BenchmarkPoolNodesFullPod(b *testing.B) {
	nodes, _ := enginetest.FullPod(0)
	inv := Fixed(nodes, nil)
	ctx := context.Background()
	for b.Loop() {
		for p := range 144 {
			if got, err := inv.Nodes(ctx, map[string]string{wellknown.LabelNodePool: fmt.Sprintf("pool-%03d", p)}); err != nil || len(got) != 16 {
				b.Fatal(len(got), err)
			}
		}
	}
}
