package tpuslice

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// With 100 partitions held by slices, select the 44 that are left (a
// 4x4x176 slice).
func BenchmarkSelectAmong2304NodesWith100Slices(b *testing.B) {
	nodes, users := enginetest.FullPod(100)
	parts := clusterread.GroupPartitions(nodes, users)
	for b.Loop() {
		if ids, err := choosePartitions(parts, selectQuery{Count: 44}); err != nil || len(ids) != 44 {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelect144OfFullPod(b *testing.B) {
	nodes, users := enginetest.FullPod(0)
	parts := clusterread.GroupPartitions(nodes, users)
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
	nodes, users := enginetest.FullPod(100)
	var slices []*unstructured.Unstructured
	for id, name := range users {
		slices = append(slices, enginetest.Slice(name, id))
	}
	inv := clusterread.Fixed(nodes, slices)
	ctx := context.Background()
	for b.Loop() {
		ids, _, err := selectAndClaim(ctx, inv, selectQuery{Slice: "new", Count: 44})
		if err != nil || len(ids) != 44 {
			b.Fatal(err)
		}
	}
}

// The same with no slices: all 144 partitions for one 16x24x24 slice.
func BenchmarkSelectAndClaimFullPod144(b *testing.B) {
	nodes, _ := enginetest.FullPod(0)
	inv := clusterread.Fixed(nodes, nil)
	ctx := context.Background()
	for b.Loop() {
		ids, _, err := selectAndClaim(ctx, inv, selectQuery{Slice: "pod", Count: 144})
		if err != nil || len(ids) != 144 {
			b.Fatal(err)
		}
	}
}

// The apply path of a sub-slice selector at full-pod scale, for each
// shape: group the 2304 nodes into partitions of the shape, mark what the
// 144 Slices hold (directly or through overlap), choose best-fit, claim.
func BenchmarkSelectAndClaimSubSliceFullPod(b *testing.B) {
	nodes, slices := enginetest.FullPodAllShapes()
	inv := clusterread.Fixed(nodes, slices)
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
// chosen (what a selection costs right after the nodes changed). Each
// round reads a new inventory of the same nodes, made off the clock.
func BenchmarkSelectSubSliceColdFullPod(b *testing.B) {
	nodes, slices := enginetest.FullPodAllShapes()
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		inv := clusterread.Fixed(nodes, slices) // as after every node changed
		b.StartTimer()
		parts, err := inv.PartitionsOf(ctx, "2x2x1")
		if err != nil {
			b.Fatal(err)
		}
		ids, err := choosePartitions(parts, selectQuery{Slice: "new", Count: 1, Shape: "2x2x1"})
		if err != nil || len(ids) != 1 {
			b.Fatal(err)
		}
	}
}

// selectAndClaim is the selection of q, as the engine makes it.
func selectAndClaim(ctx context.Context, inv *clusterread.Inventory, q selectQuery) ([]string, []clusterread.Partition, error) {
	return inv.SelectAndClaim(ctx, q.Slice, q.shape(), func(parts []clusterread.Partition) ([]string, error) { return choosePartitions(parts, q) })
}
