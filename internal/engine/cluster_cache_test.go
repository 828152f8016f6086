package engine

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The inventory finds a pool's nodes through its index, and other label
// queries by a scan.
func TestInventoryNodesByPool(t *testing.T) {
	t.Parallel()
	nodes, _ := fullPod(0)
	inv := syncedInventory(nodes, nil)
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
	kube, watching := newKube(testNode("n-0", "pool-a"))
	inv := newInventory(t, kube)
	if got, err := inv.Nodes(t.Context(), nil); err != nil || len(got) != 1 {
		t.Fatalf("before Stop: %d nodes, %v; want 1", len(got), err)
	}
	<-watching
	stopped := inv.nodes
	inv.Stop()
	inv.Stop() // a second Stop is a no-op
	if _, err := kube.CoreV1().Nodes().Create(t.Context(), testNode("n-1", "pool-a"), metav1.CreateOptions{}); err != nil {
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
