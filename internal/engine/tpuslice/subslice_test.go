package tpuslice

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func findPartition(t *testing.T, parts []clusterread.Partition, id string) clusterread.Partition {
	t.Helper()
	for _, p := range parts {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("no partition %s among %v", id, partitionIDs(parts))
	return clusterread.Partition{}
}

// A slice holds every partition that shares a node with the one it lists.
func TestGroupShapeOverlap(t *testing.T) {
	t.Parallel()
	nodes := enginetest.SubBlockNodes("sb1", "pool-1", "blk")
	users := map[string]string{enginetest.SubID("sb1", "2x2x2", 3): "serve"} // hosts 6 and 7

	whole := clusterread.GroupShape(nodes, "4x4x4", users)
	if len(whole) != 1 {
		t.Fatalf("%d 4x4x4 partitions, want 1", len(whole))
	}
	p := whole[0]
	if p.Slice != "serve" || p.SlicePartition != enginetest.SubID("sb1", "2x2x2", 3) || !p.Overlapped() || p.Free != 14 || p.Parent != p.ID {
		t.Errorf("4x4x4 around a held 2x2x2: %+v", p)
	}
	if why := p.Unusable("", false); why != "used by slice serve (through an overlapping smaller partition)" {
		t.Errorf("unusable = %q", why)
	}

	halves := clusterread.GroupShape(nodes, "2x4x4", users)
	if len(halves) != 2 {
		t.Fatalf("%d 2x4x4 partitions, want 2", len(halves))
	}
	if h := findPartition(t, halves, enginetest.SubID("sb1", "2x4x4", 0)); h.Slice != "serve" || h.Free != 6 {
		t.Errorf("2x4x4 #0 holds hosts 6-7: %+v", h)
	}
	if h := findPartition(t, halves, enginetest.SubID("sb1", "2x4x4", 1)); h.Slice != "" || h.Free != 8 {
		t.Errorf("2x4x4 #1 is free: %+v", h)
	}

	singles := clusterread.GroupShape(nodes, "2x2x1", users)
	if len(singles) != 16 {
		t.Fatalf("%d 2x2x1 partitions, want 16", len(singles))
	}
	in := findPartition(t, singles, enginetest.SubID("sb1", "2x2x1", 6))
	if in.Slice != "serve" || !in.Overlapped() || in.Parent != enginetest.SubID("sb1", "4x4x4", 0) {
		t.Errorf("2x2x1 #6 lies in the held 2x2x2: %+v", in)
	}
	if why := in.Unusable("", false); why != "used by slice serve (through an overlapping larger partition)" {
		t.Errorf("unusable = %q", why)
	}
	wantAncestors := []string{enginetest.SubID("sb1", "4x4x4", 0), enginetest.SubID("sb1", "2x4x4", 0), enginetest.SubID("sb1", "2x2x4", 1), enginetest.SubID("sb1", "2x2x2", 3)}
	if !reflect.DeepEqual(in.Ancestors, wantAncestors) || !reflect.DeepEqual(in.AncestorFree, []int{14, 6, 2, 0}) {
		t.Errorf("ancestors %v free %v", in.Ancestors, in.AncestorFree)
	}
	if out := findPartition(t, singles, enginetest.SubID("sb1", "2x2x1", 5)); out.Slice != "" || out.Unusable("", false) != "" {
		t.Errorf("2x2x1 #5 is free: %+v", out)
	}

	// A super-slice on the 4x4x4 holds every sub-partition.
	users = map[string]string{enginetest.SubID("sb1", "4x4x4", 0): "train"}
	for _, shape := range topology.SubSliceShapes {
		for _, p := range clusterread.GroupShape(nodes, shape, users) {
			if p.Slice != "train" || !p.Overlapped() || p.Free != 0 {
				t.Errorf("%s %s inside a held 4x4x4: %+v", shape, p.ID, p)
			}
		}
	}
}

// Sub-slices pack best-fit into fragmented sub-blocks, leaving whole ones
// for super-slices; each choice is stable.
func TestSelectSubSliceBestFit(t *testing.T) {
	t.Parallel()
	nodes := append(enginetest.SubBlockNodes("sba", "pool-a", "blk"), enginetest.SubBlockNodes("sbb", "pool-b", "blk")...)
	users := map[string]string{}
	pick := func(shape string) string {
		t.Helper()
		parts := clusterread.GroupShape(nodes, shape, users)
		ids, err := choosePartitions(parts, selectQuery{Count: 1, Shape: shape, Slice: "new"})
		if err != nil {
			t.Fatalf("select %s: %v", shape, err)
		}
		again, _ := choosePartitions(clusterread.GroupShape(nodes, shape, users), selectQuery{Count: 1, Shape: shape, Slice: "new"})
		if !reflect.DeepEqual(ids, again) {
			t.Fatalf("select %s is not stable: %v then %v", shape, ids, again)
		}
		return ids[0]
	}
	// The first 2x2x2 breaks a sub-block: the first by pool.
	if got := pick("2x2x2"); got != enginetest.SubID("sba", "2x2x2", 0) {
		t.Fatalf("first 2x2x2 = %s", got)
	}
	users[enginetest.SubID("sba", "2x2x2", 0)] = "s1"
	// The next fills the same 2x2x4 (hosts 2-3), not sbb.
	if got := pick("2x2x2"); got != enginetest.SubID("sba", "2x2x2", 1) {
		t.Fatalf("second 2x2x2 = %s", got)
	}
	users[enginetest.SubID("sba", "2x2x2", 1)] = "s2"
	// A 2x2x1 goes into sba's broken 2x4x4 (hosts 4-7), not its whole half.
	if got := pick("2x2x1"); got != enginetest.SubID("sba", "2x2x1", 4) {
		t.Fatalf("2x2x1 = %s", got)
	}
	users[enginetest.SubID("sba", "2x2x1", 4)] = "s3"
	// A 2x4x4 takes sba's free half, keeping sbb whole.
	if got := pick("2x4x4"); got != enginetest.SubID("sba", "2x4x4", 1) {
		t.Fatalf("2x4x4 = %s", got)
	}
	users[enginetest.SubID("sba", "2x4x4", 1)] = "s4"
	// A 4x4x4 gets sbb, the only whole sub-block.
	if got := pick("4x4x4"); got != enginetest.SubID("sbb", "4x4x4", 0) {
		t.Fatalf("4x4x4 = %s", got)
	}
	users[enginetest.SubID("sbb", "4x4x4", 0)] = "train"
	// Now no 2x2x4 is free: hosts 4-7 of sba hold a 2x2x1.
	_, err := choosePartitions(clusterread.GroupShape(nodes, "2x2x4", users), selectQuery{Count: 1, Shape: "2x2x4", Slice: "new"})
	testsupport.WantContains(t, err, "1 2x2x4 partition(s) are needed in one block", "block blk: 0 usable", "used by slice train (through an overlapping larger partition)")
}

func TestCheckListedPartitions(t *testing.T) {
	t.Parallel()
	nodes := append(enginetest.SubBlockNodes("sba", "pool-a", "blk"), enginetest.SubBlockNodes("sbb", "pool-b", "blk")...)
	dead := enginetest.Slice("dead", enginetest.SubID("sbb", "2x2x2", 0))
	_ = unstructured.SetNestedSlice(dead.Object, []any{map[string]any{"type": "Ready", "status": "False", "reason": clusterread.SliceFailed}}, "status", "conditions")
	inv := clusterread.Fixed(nodes, []*unstructured.Unstructured{enginetest.Slice("serve", enginetest.SubID("sba", "2x2x2", 3)), dead})
	e := planEngine(inv)
	ctx := context.Background()

	// A FAILED slice holds nothing for the controller, nor for this check.
	if err := e.checkListedPartitions(ctx, "new", enginetest.Topo(t, "2x2x1"), []string{enginetest.SubID("sbb", "2x2x1", 0)}); err != nil {
		t.Errorf("a partition of a FAILED slice: %v", err)
	}
	if err := e.checkListedPartitions(ctx, "new", enginetest.Topo(t, "2x2x2"), []string{enginetest.SubID("sba", "2x2x2", 2)}); err != nil {
		t.Errorf("a free 2x2x2: %v", err)
	}
	if err := e.checkListedPartitions(ctx, "serve", enginetest.Topo(t, "2x2x2"), []string{enginetest.SubID("sba", "2x2x2", 3)}); err != nil {
		t.Errorf("the slice's own partition: %v", err)
	}
	if err := e.checkListedPartitions(ctx, "new", enginetest.Topo(t, "2x2x2"), []string{"made-by-this-apply"}); err != nil {
		t.Errorf("an unknown ID: %v", err)
	}
	testsupport.WantContains(t, e.checkListedPartitions(ctx, "new", enginetest.Topo(t, "2x2x2"), []string{enginetest.SubID("sba", "2x2x2", 3)}),
		"2x2x2 partition sba-2x2x2-3 (node pool pool-a) is used by slice serve")
	testsupport.WantContains(t, e.checkListedPartitions(ctx, "new", enginetest.Topo(t, "2x2x4"), []string{enginetest.SubID("sba", "2x2x4", 1)}),
		"2x2x4 partition sba-2x2x4-1 (node pool pool-a) overlaps partition sba-2x2x2-3, which slice serve holds")
	testsupport.WantContains(t, e.checkListedPartitions(ctx, "train", enginetest.Topo(t, "4x4x8"), []string{enginetest.SubID("sba", "4x4x4", 0), enginetest.SubID("sbb", "4x4x4", 0)}),
		"4x4x4 partition sba-4x4x4-0 (node pool pool-a) overlaps partition sba-2x2x2-3, which slice serve holds")
	testsupport.WantContains(t, e.checkListedPartitions(ctx, "new", enginetest.Topo(t, "2x2x2"), []string{enginetest.SubID("sbb", "4x4x4", 0)}),
		"partition sbb-4x4x4-0 is a 4x4x4 partition (node pool pool-b), but a 2x2x2 sub-slice lists 2x2x2 partitions (the cloud.google.com/gke-tpu-partition-2x2x2-id label)")
	testsupport.WantContains(t, e.checkListedPartitions(ctx, "new", enginetest.Topo(t, "4x4x4"), []string{enginetest.SubID("sbb", "2x4x4", 1)}),
		"is a 2x4x4 partition (node pool pool-b), but a 4x4x4 super-slice lists 4x4x4 partitions")
}

func TestCreateSliceRefusesBeforeCreating(t *testing.T) {
	t.Parallel()
	nodes := enginetest.SubBlockNodes("sba", "pool-a", "blk")
	inv := clusterread.Fixed(nodes, []*unstructured.Unstructured{enginetest.Slice("serve", enginetest.SubID("sba", "2x2x2", 3))})
	g := enginetest.NewGKE()
	g.Version = "1.36.0-gke.3712000"
	e := planEngine(inv, withGKE(g), boundTo("projects/p/locations/l/clusters/c"))
	created := false
	_, err := e.CreateSlice(context.Background(), SliceRequest{Name: "new", Type: "tpu7x", Topology: "2x2x4", PartitionIDs: []string{enginetest.SubID("sba", "2x2x4", 1)}},
		func([]string) { created = true })
	testsupport.WantContains(t, err, "the slice cannot be formed", "overlaps partition sba-2x2x2-3, which slice serve holds")
	if created {
		t.Error("a Slice was created")
	}
	if list, _ := e.cluster(context.Background()); list != nil {
		if got, _ := list.Slices().Get(context.Background(), "new", metav1.GetOptions{}); got != nil {
			t.Errorf("Slice new exists: %v", got)
		}
	}
}

func TestCheckVersion(t *testing.T) {
	t.Parallel()
	g := enginetest.NewGKE()
	g.Version = "1.35.4-gke.1000000"
	ctx := context.Background()
	const cluster = "projects/p/locations/l/clusters/c"
	e := newSlicesOver(g, nil, boundTo(cluster))
	testsupport.WantContains(t, e.checkVersion(ctx, enginetest.Topo(t, "2x2x1")), "a sub-slice needs GKE 1.36.0-gke.3712000 or later, but the cluster runs 1.35.4-gke.1000000")
	if err := e.checkVersion(ctx, enginetest.Topo(t, "4x4x8")); err != nil {
		t.Errorf("a super-slice on 1.35.4: %v", err)
	}
	if g.ClusterGets != 1 {
		t.Errorf("%d clusters.get for two checks, want 1 (cached)", g.ClusterGets)
	}
	if err := newSlicesOver(g, nil).checkVersion(ctx, enginetest.Topo(t, "2x2x1")); err != nil {
		t.Errorf("no cluster named: %v", err)
	}
	g2 := enginetest.NewGKE()
	g2.GetErr = enginetest.NotFound("cluster")
	if err := newSlicesOver(g2, nil, boundTo(cluster)).checkVersion(ctx, enginetest.Topo(t, "2x2x1")); err != nil {
		t.Errorf("an unreadable cluster is left to GKE: %v", err)
	}
}

// A shortage among many slices names a few of them, not every one.
func TestSelectSummarisesManyHolders(t *testing.T) {
	t.Parallel()
	var parts []clusterread.Partition
	for i := range 10 {
		parts = append(parts, part(fmt.Sprintf("p%d", i), wellknown.PartitionHealthy, "pool", "blk", fmt.Sprintf("s%d", i)))
	}
	parts = append(parts, part("free", wellknown.PartitionHealthy, "pool", "blk", ""))
	_, err := choosePartitions(parts, selectQuery{Count: 2})
	testsupport.WantContains(t, err, "block blk: 1 usable, skipped 10 used by 10 other slices (slice s0; slice s1; slice s2; slice s3, ...)")
}
