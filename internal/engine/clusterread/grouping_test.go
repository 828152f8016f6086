package clusterread

import (
	"math/rand/v2"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func TestGroupPartitions(t *testing.T) {
	t.Parallel()
	nodes := []*corev1.Node{
		enginetest.ReadyNode("n2", map[string]string{"cloud.google.com/gke-tpu-partition-4x4x4-id": "a", "cloud.google.com/gke-tpu-partition-4x4x4-state": "HEALTHY",
			wellknown.LabelNodePool: "pool-a", wellknown.LabelTopologyBlock: "b1", wellknown.LabelTopologySubBlock: "s1"}, true),
		enginetest.ReadyNode("n1", map[string]string{"cloud.google.com/gke-tpu-partition-4x4x4-id": "a", "cloud.google.com/gke-tpu-partition-4x4x4-state": "UNHEALTHY",
			wellknown.LabelNodePool: "pool-a", wellknown.LabelSlice: "labelled"}, false),
		// Preview label names.
		enginetest.ReadyNode("n3", map[string]string{"cloud.google.com/gke-tpu-slice-4x4x4-id": "b", "cloud.google.com/gke-tpu-partition-state-4x4x4": "DEGRADED", wellknown.LabelNodePool: "pool-b"}, true),
		enginetest.ReadyNode("n4", map[string]string{"cloud.google.com/gke-tpu-partition-id-4x4x4": "c", wellknown.LabelNodePool: "pool-c"}, true),
		enginetest.ReadyNode("plain", map[string]string{wellknown.LabelNodePool: "cpu"}, true),
	}
	got := GroupPartitions(nodes, map[string]string{"b": "spec-user"})
	if len(got) != 3 {
		t.Fatalf("%d partitions, want 3: %+v", len(got), got)
	}
	a, b, c := got[0], got[1], got[2]
	if a.ID != "a" || a.State != wellknown.PartitionUnhealthy || a.Nodes != 2 || a.Ready != 1 || a.Slice != "labelled" ||
		!reflect.DeepEqual(a.NodeNames, []string{"n1", "n2"}) || a.Block != "b1" || a.SubBlock != "s1" {
		t.Errorf("partition a: %+v (the worst node state, both nodes, the slice label)", a)
	}
	if b.ID != "b" || b.State != wellknown.PartitionDegraded || b.Slice != "spec-user" || b.NodePool != "pool-b" {
		t.Errorf("partition b: %+v", b)
	}
	if c.ID != "c" || c.State != "" {
		t.Errorf("partition c: %+v", c)
	}
}

// Grouping nodes met in their shape's ID order (the cluster cache's
// order of indexes) gives what grouping them as they come gives, for
// every shape, whatever order the informer lists the nodes in.
func TestGroupInfosInIDOrder(t *testing.T) {
	t.Parallel()
	nodes, _ := enginetest.FullPodAllShapes()
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	infos := infosOf(nodes)
	users := map[string]string{enginetest.SubID("sb-007", "2x4x4", 0): "serve", enginetest.SubID("sb-009", "4x4x4", 0): "train"}
	for _, shape := range topology.PartitionShapes {
		order := idOrder(infos, shapeIndex(shape))
		for j := 1; j < len(order); j++ {
			a, b := infos[order[j-1]].ids[shapeIndex(shape)], infos[order[j]].ids[shapeIndex(shape)]
			if a > b || (a == b && order[j-1] > order[j]) {
				t.Fatalf("%s: order[%d] = %d (%q) after %d (%q)", shape, j, order[j], b, order[j-1], a)
			}
		}
		want := groupInfos(infos, nil, shape, users)
		got := groupInfos(infos, order, shape, users)
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: grouped in ID order: %d partitions, want the %d of the nodes' own order", shape, len(got), len(want))
		}
	}
}

func BenchmarkGroupPartitionsFullPod(b *testing.B) {
	nodes, users := enginetest.FullPod(0)
	for b.Loop() {
		if got := GroupPartitions(nodes, users); len(got) != 144 {
			b.Fatal(len(got))
		}
	}
}
