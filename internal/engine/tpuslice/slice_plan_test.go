package tpuslice

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// planEngine is an engine whose inventory is inv (nil: one over its
// clients), and whose API server has no Slices, built with opts.
func planEngine(inv *clusterread.Inventory, opts ...testOption) *Slices {
	dyn := enginetest.NewDynamic()
	return newSlicesOver(nil, func(context.Context) (Cluster, error) { return kernel.NewCluster(nil, dyn), nil },
		append([]testOption{withInventory(inv), settle(20 * time.Millisecond)}, opts...)...)
}

func partitionIDs(parts []clusterread.Partition) []string {
	ids := []string{}
	for _, p := range parts {
		ids = append(ids, p.ID)
	}
	return ids
}

// markActive makes the fake Slice ACTIVE, as the slice controller would.
func markActive(t *testing.T, e *Slices, name string) {
	t.Helper()
	c, _ := e.cluster(t.Context())
	u, err := c.Slices().Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"type": "Ready", "status": "True", "reason": clusterread.SliceActive}}, "status", "conditions")
	if _, err := c.Slices().Update(t.Context(), u, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// CreateSlice chooses with the selector, claims what it chose (a second
// slice of the run gets other partitions), creates the Slice with them,
// and reports a selection that cannot be met as ErrSelection, creating
// nothing.
func TestCreateSliceSelectsAndClaims(t *testing.T) {
	t.Parallel()
	e := planEngine(clusterread.Fixed(enginetest.PlanNodes(), nil))
	sel := &PartitionSelector{Block: "b1"}
	create := func(name string) ([]string, error) {
		var got []string
		_, err := e.CreateSlice(t.Context(), SliceRequest{Name: name, Type: "tpu7x", Topology: "4x4x4", Selector: sel}, func(ids []string) {
			got = ids
			markActive(t, e, name)
		})
		return got, err
	}
	first, err := create("first")
	if err != nil || !reflect.DeepEqual(first, []string{"p1"}) {
		t.Fatalf("first slice: %v, %v; want [p1]", first, err)
	}
	second, err := create("second")
	if err != nil || !reflect.DeepEqual(second, []string{"p2"}) {
		t.Fatalf("second slice: %v, %v; want [p2] (p1 is claimed)", second, err)
	}
	c, _ := e.cluster(t.Context())
	u, err := c.Slices().Get(t.Context(), "second", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ids, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "partitionIds"); !reflect.DeepEqual(ids, []string{"p2"}) {
		t.Errorf("Slice second lists %v, want [p2]", ids)
	}
	_, err = create("third")
	if !errors.Is(err, ErrSelection) || !strings.Contains(err.Error(), "block b1: 0 usable") {
		t.Errorf("third slice: %v; want ErrSelection saying block b1 has 0 usable", err)
	}
	if _, err := c.Slices().Get(t.Context(), "third", metav1.GetOptions{}); err == nil {
		t.Error("an unsatisfiable selection created a Slice")
	}
}

// Listed partitions are claimed too: a selection later in the run keeps
// off them.
func TestCreateSliceClaimsListedPartitions(t *testing.T) {
	t.Parallel()
	e := planEngine(clusterread.Fixed(enginetest.PlanNodes(), nil))
	if _, err := e.CreateSlice(t.Context(), SliceRequest{Name: "listed", Type: "tpu7x", Topology: "4x4x4", PartitionIDs: []string{"p1"}},
		func([]string) { markActive(t, e, "listed") }); err != nil {
		t.Fatal(err)
	}
	var got []string
	if _, err := e.CreateSlice(t.Context(), SliceRequest{Name: "chosen", Type: "tpu7x", Topology: "4x4x4", Selector: &PartitionSelector{Block: "b1"}},
		func(ids []string) { got = ids; markActive(t, e, "chosen") }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{"p2"}) {
		t.Errorf("chosen = %v, want [p2]", got)
	}
}

func TestCheckSelection(t *testing.T) {
	t.Parallel()
	e := planEngine(clusterread.Fixed(enginetest.PlanNodes(), nil))
	if err := e.checkSelection(t.Context(), "s", enginetest.Topo(t, "4x4x8"), PartitionSelector{NodePools: []string{"np-1", "np-2"}}, clusterread.DevicePlugin); err != nil {
		t.Errorf("two healthy pools for 4x4x8: %v", err)
	}
	err := e.checkSelection(t.Context(), "s", enginetest.Topo(t, "4x4x8"), PartitionSelector{NodePools: []string{"np-1", "np-4"}}, clusterread.DevicePlugin)
	testsupport.WantContains(t, err, "2 partition(s) are needed in one block", "1 nodes not Ready")
	if err := e.checkSelection(t.Context(), "s", enginetest.Topo(t, "4x4x8"), PartitionSelector{NodePools: []string{"np-1", "np-new"}}, clusterread.DevicePlugin); err != nil {
		t.Errorf("a pool of this apply may add partitions, but CheckSelection said %v", err)
	}
	if err := e.checkSelection(t.Context(), "s", enginetest.Topo(t, "8x8x8"), PartitionSelector{}, clusterread.DevicePlugin); err != nil {
		t.Errorf("without node pools, pools of this apply may add partitions, but CheckSelection said %v", err)
	}
}

func TestShapeOf(t *testing.T) {
	t.Parallel()
	s, err := ShapeOf("train", "4x8x8")
	if err != nil {
		t.Fatal(err)
	}
	if s.Partitions != 4 || s.Chips != 256 || s.Hosts != 64 || s.AcceleratorType != "tpu7x-512" || s.NodeSelector[wellknown.LabelSlice] != "train" {
		t.Errorf("ShapeOf(train, 4x8x8) = %+v", s)
	}
	if _, err := ShapeOf("x", "4x8x4"); err == nil {
		t.Error("ShapeOf accepted 4x8x4")
	}
}

// A block named as the reservation names it matches no partition: the
// error says which physical blocks the partitions are in.
func TestSelectNamesTheBlocksThatExist(t *testing.T) {
	t.Parallel()
	_, err := choosePartitions(syncedPartitions(t), selectQuery{Count: 1, Block: "block-a"})
	testsupport.WantContains(t, err, `no partition is in block "block-a"`, "neither a reservation block that the cluster's node pools target nor a physical block", "nodes' "+wellknown.LabelTopologyBlock+" label", "are in: b1 (4), b2 (1)")
	_, err = choosePartitions(syncedPartitions(t), selectQuery{Count: 1, Block: "block-a", NodePools: []string{"np-5"}})
	testsupport.WantContains(t, err, "the partitions of those node pools are in: b2 (1)")
}

func syncedPartitions(t *testing.T) []clusterread.Partition {
	t.Helper()
	parts, err := clusterread.Fixed(enginetest.PlanNodes(), nil).Partitions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return parts
}

// A selector block may be the reservation block's name: the node pools
// that target it say which physical block it is.
func TestResolveBlockNames(t *testing.T) {
	t.Parallel()
	const cluster = "projects/p/locations/l/clusters/c"
	gke := enginetest.NewGKE()
	target := func(pool, reservation, block string) {
		gke.Pools[cluster+"/nodePools/"+pool] = &container.NodePool{Name: pool, Config: &container.NodeConfig{ReservationAffinity: &container.ReservationAffinity{
			Values: []string{"projects/p/reservations/" + reservation + "/reservationBlocks/" + block + "/reservationSubBlocks/s"},
		}}}
	}
	for _, pool := range []string{"np-1", "np-2", "np-3", "np-4"} {
		target(pool, "res-1", "block-a")
	}
	target("np-5", "res-2", "block-a") // same block name, another reservation
	e := newSlicesOver(gke, nil, boundTo(cluster))
	parts := syncedPartitions(t)
	for _, tc := range []struct{ block, want, err string }{
		{"b2", "b2", ""},            // a physical block
		{"res-1/block-a", "b1", ""}, // a qualified reservation block
		{"res-2/block-a", "b2", ""}, // the other one
		{"block-z", "block-z", ""},  // no pool: left to choosePartitions' message
		{"block-a", "", "names reservation blocks in 2 physical blocks (b1, b2)"},
	} {
		got, err := e.resolveBlock(t.Context(), PartitionSelector{Block: tc.block}, parts)
		if tc.err != "" {
			testsupport.WantContains(t, err, tc.err, `write "reservation/block"`)
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("resolveBlock(%q) = %q, %v; want %q", tc.block, got, err, tc.want)
		}
	}
	if got, _ := newSlicesOver(gke, nil).resolveBlock(t.Context(), PartitionSelector{Block: "res-1/block-a"}, parts); got != "res-1/block-a" {
		t.Errorf("without a cluster the block is resolved to %q", got)
	}
}
