package clusterread

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

// Fixed is an inventory whose caches hold nodes and Slices
// already, as after its first list, and watch nothing: what the tests and
// benchmarks of the packages above read partitions from (pass it as
// Options.Inventory).
func Fixed(nodes []*corev1.Node, slices []*unstructured.Unstructured) *Inventory {
	inv := &Inventory{started: true, nodes: cache.NewIndexer(cache.MetaNamespaceKeyFunc, nodeIndexers), slices: cache.NewStore(cache.MetaNamespaceKeyFunc)}
	for _, n := range nodes {
		_ = inv.nodes.Add(n)
	}
	for _, s := range slices {
		_ = inv.slices.Add(s)
	}
	synced := func() bool { return true }
	inv.nodeSync = newInformerSync("nodes", "nodes", "", Options{}, synced)
	inv.sliceSync = newInformerSync("Slices", "slices.accelerator.gke.io", "", Options{}, synced)
	return inv
}
