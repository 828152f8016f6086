package engine

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
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
				"cloud.google.com/gke-tpu-partition-4x4x4-state": wellknown.PartitionHealthy,
				wellknown.LabelNodePool:                          fmt.Sprintf("pool-%03d", p),
				wellknown.LabelTopologyBlock:                     "pod-block",
				wellknown.LabelTopologySubBlock:                  fmt.Sprintf("sb-%03d", p),
			}, true))
		}
	}
	return nodes, users
}

func BenchmarkGroupPartitionsFullPod(b *testing.B) {
	nodes, users := fullPod(0)
	for b.Loop() {
		if got := groupPartitions(nodes, users); len(got) != 144 {
			b.Fatal(len(got))
		}
	}
}

// With 100 partitions held by slices, select the 44 that are left (a
// 4x4x176 slice).
func BenchmarkSelectAmong2304NodesWith100Slices(b *testing.B) {
	nodes, users := fullPod(100)
	parts := groupPartitions(nodes, users)
	for b.Loop() {
		if ids, err := choosePartitions(parts, selectQuery{Count: 44}); err != nil || len(ids) != 44 {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelect144OfFullPod(b *testing.B) {
	nodes, users := fullPod(0)
	parts := groupPartitions(nodes, users)
	for b.Loop() {
		if ids, err := choosePartitions(parts, selectQuery{Count: 144}); err != nil || len(ids) != 144 {
			b.Fatal(err)
		}
	}
}

// The apply path of a selector: group the inventory's 2304 nodes into the
// pod's 144 partitions, find the 100 held by 100 existing Slices, choose
// the 44 left (a 4x4x176 slice) and claim them.
func BenchmarkSelectAndClaimFullPod100Slices(b *testing.B) {
	nodes, users := fullPod(100)
	var slices []*unstructured.Unstructured
	for id, name := range users {
		slices = append(slices, enginetest.Slice(name, id))
	}
	inv := syncedInventory(nodes, slices)
	ctx := context.Background()
	for b.Loop() {
		ids, _, err := selectAndClaim(ctx, inv, selectQuery{Slice: "new", Count: 44})
		if err != nil || len(ids) != 44 {
			b.Fatal(err)
		}
	}
}

// A refresh of a full pod reads each of the 144 pools' nodes.
func BenchmarkPoolNodesFullPod(b *testing.B) {
	nodes, _ := fullPod(0)
	inv := syncedInventory(nodes, nil)
	ctx := context.Background()
	for b.Loop() {
		for p := range 144 {
			if got, err := inv.Nodes(ctx, map[string]string{wellknown.LabelNodePool: fmt.Sprintf("pool-%03d", p)}); err != nil || len(got) != 16 {
				b.Fatal(len(got), err)
			}
		}
	}
}

// The same with no slices: all 144 partitions for one 16x24x24 slice.
func BenchmarkSelectAndClaimFullPod144(b *testing.B) {
	nodes, _ := fullPod(0)
	inv := syncedInventory(nodes, nil)
	ctx := context.Background()
	for b.Loop() {
		ids, _, err := selectAndClaim(ctx, inv, selectQuery{Slice: "pod", Count: 144})
		if err != nil || len(ids) != 144 {
			b.Fatal(err)
		}
	}
}

// fullPodAllShapes is a full pod (144 sub-blocks, 2304 nodes) whose nodes
// carry the partition labels of every shape, with slices holding part of
// it: 64 sub-blocks under 4x4x4 slices and, in 40 more, a 2x4x4 and a
// 2x2x2 sub-slice each (fragmented sub-blocks), the last 40 whole.
func fullPodAllShapes() ([]*corev1.Node, []*unstructured.Unstructured) {
	nodes := make([]*corev1.Node, 0, 2304)
	var slices []*unstructured.Unstructured
	for p := range 144 {
		sb := fmt.Sprintf("sb-%03d", p)
		nodes = append(nodes, subBlockNodes(sb, "pool-"+sb, "pod-block")...)
		switch {
		case p < 64:
			slices = append(slices, enginetest.Slice(fmt.Sprintf("train-%d", p), subID(sb, "4x4x4", 0)))
		case p < 104:
			slices = append(slices, enginetest.Slice(fmt.Sprintf("serve-big-%d", p), subID(sb, "2x4x4", 0)),
				enginetest.Slice(fmt.Sprintf("serve-small-%d", p), subID(sb, "2x2x2", 4)))
		}
	}
	return nodes, slices
}

// The apply path of a sub-slice selector at full-pod scale, for each
// shape: group the 2304 nodes into partitions of the shape, mark what the
// 144 Slices hold (directly or through overlap), choose best-fit, claim.
func BenchmarkSelectAndClaimSubSliceFullPod(b *testing.B) {
	nodes, slices := fullPodAllShapes()
	inv := syncedInventory(nodes, slices)
	ctx := context.Background()
	for _, shape := range topology.PartitionShapes {
		b.Run(shape, func(b *testing.B) {
			for b.Loop() {
				ids, _, err := selectAndClaim(ctx, inv, selectQuery{Slice: "new", Count: 1, Shape: shape})
				if err != nil || len(ids) != 1 {
					b.Fatal(err)
				}
			}
		})
	}
}

// The same without the inventory's per-node cache: every label of the
// 2304 nodes read again, then grouped into 2x2x1 partitions and one
// chosen (what a selection costs right after the nodes changed).
func BenchmarkSelectSubSliceColdFullPod(b *testing.B) {
	nodes, slices := fullPodAllShapes()
	inv := syncedInventory(nodes, slices)
	for b.Loop() {
		inv.infoMu.Lock()
		inv.infos, inv.all, inv.byShape = nil, nil, nil // as after every node changed
		inv.infoMu.Unlock()
		ids, err := choosePartitions(inv.partitions("2x2x1"), selectQuery{Slice: "new", Count: 1, Shape: "2x2x1"})
		if err != nil || len(ids) != 1 {
			b.Fatal(err)
		}
	}
}

// selectAndClaim is the selection of q, as the engine makes it.
func selectAndClaim(ctx context.Context, inv *clusterCache, q selectQuery) ([]string, []Partition, error) {
	return inv.selectAndClaim(ctx, q.Slice, q.shape(), func(parts []Partition) ([]string, error) { return choosePartitions(parts, q) })
}
