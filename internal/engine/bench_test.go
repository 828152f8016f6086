package engine

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// fullPod is the nodes of a full Ironwood pod: 144 partitions of 16 nodes
// (2304 nodes) in one block, with the first slices partitions labelled.
func fullPod(slices int) ([]*corev1.Node, map[string]string) {
	nodes := make([]*corev1.Node, 0, 2304)
	users := map[string]string{}
	for p := 0; p < 144; p++ {
		id := fmt.Sprintf("%032x", p)
		if p < slices {
			users[id] = fmt.Sprintf("slice-%d", p)
		}
		for h := 0; h < 16; h++ {
			nodes = append(nodes, node(fmt.Sprintf("gke-pool-%03d-h%02d", p, h), map[string]string{
				"cloud.google.com/gke-tpu-partition-4x4x4-id":    id,
				"cloud.google.com/gke-tpu-partition-4x4x4-state": PartitionHealthy,
				LabelNodePool:         fmt.Sprintf("pool-%03d", p),
				LabelTopologyBlock:    "pod-block",
				LabelTopologySubBlock: fmt.Sprintf("sb-%03d", p),
			}, true))
		}
	}
	return nodes, users
}

func BenchmarkGroupPartitionsFullPod(b *testing.B) {
	nodes, users := fullPod(0)
	for b.Loop() {
		if got := GroupPartitions(nodes, users); len(got) != 144 {
			b.Fatal(len(got))
		}
	}
}

// With 100 partitions held by slices, select the 44 that are left (a
// 4x4x176 slice).
func BenchmarkSelectAmong2304NodesWith100Slices(b *testing.B) {
	nodes, users := fullPod(100)
	parts := GroupPartitions(nodes, users)
	for b.Loop() {
		if ids, err := Select(parts, SelectRequest{Count: 44}); err != nil || len(ids) != 44 {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelect144OfFullPod(b *testing.B) {
	nodes, users := fullPod(0)
	parts := GroupPartitions(nodes, users)
	for b.Loop() {
		if ids, err := Select(parts, SelectRequest{Count: 144}); err != nil || len(ids) != 144 {
			b.Fatal(err)
		}
	}
}
