package engine

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func TestGroupPartitions(t *testing.T) {
	nodes := []*corev1.Node{
		node("n2", map[string]string{"cloud.google.com/gke-tpu-partition-4x4x4-id": "a", "cloud.google.com/gke-tpu-partition-4x4x4-state": "HEALTHY",
			wellknown.LabelNodePool: "pool-a", wellknown.LabelTopologyBlock: "b1", wellknown.LabelTopologySubBlock: "s1"}, true),
		node("n1", map[string]string{"cloud.google.com/gke-tpu-partition-4x4x4-id": "a", "cloud.google.com/gke-tpu-partition-4x4x4-state": "UNHEALTHY",
			wellknown.LabelNodePool: "pool-a", wellknown.LabelSlice: "labelled"}, false),
		// Preview label names.
		node("n3", map[string]string{"cloud.google.com/gke-tpu-slice-4x4x4-id": "b", "cloud.google.com/gke-tpu-partition-state-4x4x4": "DEGRADED", wellknown.LabelNodePool: "pool-b"}, true),
		node("n4", map[string]string{"cloud.google.com/gke-tpu-partition-id-4x4x4": "c", wellknown.LabelNodePool: "pool-c"}, true),
		node("plain", map[string]string{wellknown.LabelNodePool: "cpu"}, true),
	}
	got := groupPartitions(nodes, map[string]string{"b": "spec-user"})
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
