package nodepool

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func TestReadNodePool(t *testing.T) {
	t.Parallel()
	subBlockPath := "projects/proj/reservations/res/reservationBlocks/block-1/reservationSubBlocks/sb-b"
	g := enginetest.NewGKE()
	g.Pools[testPoolID] = storedPool(subBlockPath)
	c := enginetest.NewCompute().WithFixtureBlock()
	// Nodes labelled under the preview's label names, one NotReady; a
	// node of another pool.
	kube, _ := enginetest.NewKube(
		enginetest.Node("slice-a-1", testPoolName, enginetest.OnSubBlock("phys-b"), enginetest.Ready, enginetest.Labelled(wellknown.PartitionIDLabels[1], "part-3", wellknown.PartitionStateLabels[1], wellknown.PartitionDegraded)),
		enginetest.Node("slice-a-0", testPoolName, enginetest.OnSubBlock("phys-b"), enginetest.Labelled(wellknown.PartitionIDLabels[2], "part-3", wellknown.PartitionStateLabels[2], wellknown.PartitionDegraded)),
		enginetest.Node("other-0", "other", enginetest.Ready, enginetest.Partition("part-9", wellknown.PartitionHealthy)),
	)
	got, err := newTestPools(c, g, kube).Read(t.Context(), testPoolID)
	if err != nil {
		t.Fatalf("ReadNodePool: %v", err)
	}
	want := &Pool{
		ID: testPoolID, Project: enginetest.Project, Location: enginetest.Region, Cluster: enginetest.Cluster, Name: testPoolName,
		Status: "RUNNING", MachineType: "tpu7x-standard-4t", Policy: "slice-policy", NodeCount: 2, Zone: enginetest.Zone,
		Labels: map[string]string{"team": "ml"}, ReservationPath: subBlockPath,
		Reservation: enginetest.Reservation, Block: enginetest.Block, SubBlock: "sb-b",
		PartitionID: "part-3", PartitionState: wellknown.PartitionDegraded,
		NodeNames: []string{"slice-a-0", "slice-a-1"}, ReadyNodes: 1,
		Taints:     []Taint{{Key: "google.com/tpu", Value: "present", Effect: "NO_SCHEDULE"}},
		AutoRepair: true, AutoUpgrade: true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ReadNodePool =\n%+v\nwant\n%+v", got, want)
	}
	if c.Reads != 0 {
		t.Errorf("a pool on a named sub-block read the reservation %d times, want 0", c.Reads)
	}
	// Asked to, a read of a pool whose partition is not HEALTHY
	// summarises the cluster's unhealthy partitions, once per process.
	e := newTestPools(c, g, kube)
	for i, want := range []string{"part-3: DEGRADED", ""} {
		got, err := e.Read(t.Context(), testPoolID, SummariseUnhealthy)
		if err != nil || !strings.Contains(got.UnhealthySummary, want) || (want == "") != (got.UnhealthySummary == "") {
			t.Errorf("read %d with SummariseUnhealthy: summary %q, %v; want one with %q", i, got.UnhealthySummary, err, want)
		}
	}
}

func TestReadNodePoolResolvesTheSubBlockOfABlockPool(t *testing.T) {
	t.Parallel()
	blockPath := "projects/proj/reservations/res/reservationBlocks/block-1"
	for _, tc := range []struct {
		name      string
		nodes     []*corev1.Node
		blockErr  error
		want      string
		wantReads int
	}{
		{"nodes on sb-c", []*corev1.Node{
			enginetest.Node("slice-a-0", testPoolName, enginetest.OnSubBlock("phys-c")),
			enginetest.Node("slice-a-1", testPoolName, enginetest.OnSubBlock("phys-c")),
		}, nil, "sb-c", 1},
		{"first node without topology", []*corev1.Node{
			enginetest.Node("slice-a-0", testPoolName),
			enginetest.Node("slice-a-1", testPoolName, enginetest.OnSubBlock("phys-a")),
		}, nil, "sb-a", 1},
		{"no nodes yet", nil, nil, "", 0},
		{"nodes without topology", []*corev1.Node{enginetest.Node("slice-a-0", testPoolName)}, nil, "", 0},
		{"unknown physical sub-block", []*corev1.Node{enginetest.Node("slice-a-0", testPoolName, enginetest.OnSubBlock("phys-q"))}, nil, "", 1},
		{"block unreadable", []*corev1.Node{enginetest.Node("slice-a-0", testPoolName, enginetest.OnSubBlock("phys-c"))}, errors.New("backend error"), "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := enginetest.NewGKE()
			g.Pools[testPoolID] = storedPool(blockPath)
			c := enginetest.NewCompute().WithFixtureBlock()
			c.BlockErr = tc.blockErr
			kube, _ := enginetest.NewKube(tc.nodes...)
			got, err := newTestPools(c, g, kube).Read(t.Context(), testPoolID)
			if err != nil {
				t.Fatalf("ReadNodePool: %v", err)
			}
			if got.Block != enginetest.Block || got.SubBlock != tc.want {
				t.Errorf("block, sub-block = %q, %q; want %q, %q", got.Block, got.SubBlock, enginetest.Block, tc.want)
			}
			if got.ReservationPath != blockPath {
				t.Errorf("reservation path = %q, want %q", got.ReservationPath, blockPath)
			}
			if c.Reads != tc.wantReads {
				t.Errorf("reservation reads = %d, want %d", c.Reads, tc.wantReads)
			}
		})
	}
}

func TestReadNodePoolSparse(t *testing.T) {
	t.Parallel()
	g := enginetest.NewGKE()
	g.Pools[testPoolID] = &container.NodePool{Name: testPoolName, Status: "PROVISIONING"}
	kube, _ := enginetest.NewKube()
	got, err := newTestPools(enginetest.NewCompute(), g, kube).Read(t.Context(), testPoolID)
	if err != nil {
		t.Fatalf("ReadNodePool: %v", err)
	}
	if got.Status != "PROVISIONING" || got.Zone != "" || got.Policy != "" || got.Reservation != "" || got.PartitionID != "" {
		t.Errorf("ReadNodePool of a bare pool = %+v", got)
	}
	if got.NodeNames == nil || len(got.NodeNames) != 0 {
		t.Errorf("node names = %#v, want an empty, non-nil list", got.NodeNames)
	}
}

func TestReadNodePoolErrors(t *testing.T) {
	t.Parallel()
	t.Run("bad ID", func(t *testing.T) {
		t.Parallel()
		g := enginetest.NewGKE()
		_, err := newTestPools(enginetest.NewCompute(), g, nil).Read(t.Context(), "slice-a")
		testsupport.WantContains(t, err, `"slice-a" is not a GKE node pool ID`)
	})
	t.Run("gone", func(t *testing.T) {
		t.Parallel()
		_, err := newTestPools(enginetest.NewCompute(), enginetest.NewGKE(), nil).Read(t.Context(), testPoolID)
		if !errors.Is(err, kernel.ErrNotFound) {
			t.Errorf("err = %v, want kernel.ErrNotFound", err)
		}
	})
	t.Run("GKE fails", func(t *testing.T) {
		t.Parallel()
		g := enginetest.NewGKE()
		g.GetErr = &googleapi.Error{Code: http.StatusForbidden, Message: "container.nodePools.get denied"}
		_, err := newTestPools(enginetest.NewCompute(), g, nil).Read(t.Context(), testPoolID)
		testsupport.WantContains(t, err, "reading node pool "+testPoolID+": container.nodePools.get denied")
		if errors.Is(err, kernel.ErrNotFound) {
			t.Error("a 403 reads as kernel.ErrNotFound")
		}
	})
	t.Run("no Kubernetes client", func(t *testing.T) {
		t.Parallel()
		g := enginetest.NewGKE()
		g.Pools[testPoolID] = storedPool("projects/proj/reservations/res/reservationBlocks/block-1")
		e := newTestPools(enginetest.NewCompute(), g, nil, inventoryFails(errors.New("kubeconfig expired")))
		_, err := e.Read(t.Context(), testPoolID)
		testsupport.WantContains(t, err, "kubeconfig expired")
	})
	t.Run("node list fails", func(t *testing.T) {
		t.Parallel()
		g := enginetest.NewGKE()
		g.Pools[testPoolID] = storedPool("projects/proj/reservations/res/reservationBlocks/block-1")
		kube, _ := enginetest.NewKube()
		kube.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, errors.New("nodes is forbidden")
		})
		// The inventory's first list keeps failing for FirstListTimeout.
		e := newTestPools(enginetest.NewCompute(), g, kube, firstListTimeout(unlistedNodesAfter))
		_, err := e.Read(t.Context(), testPoolID)
		testsupport.WantContains(t, err, "listing the nodes of node pool "+testPoolID+": cannot read the cluster's nodes: ", "nodes is forbidden")
	})
}

func TestReadNodePoolFromTheInventory(t *testing.T) {
	t.Parallel()
	g := enginetest.NewGKE()
	g.Pools[testPoolID] = storedPool("projects/proj/reservations/res/reservationBlocks/block-1")
	kube, _ := enginetest.NewKube(
		enginetest.Node("slice-a-1", testPoolName, enginetest.OnSubBlock("phys-c"), enginetest.Ready, enginetest.Labelled(wellknown.PartitionIDLabels[2], "part-5", wellknown.PartitionStateLabels[2], wellknown.PartitionHealthy)),
		enginetest.Node("slice-a-0", testPoolName, enginetest.OnSubBlock("phys-c"), enginetest.Ready, enginetest.Labelled(wellknown.PartitionIDLabels[2], "part-5", wellknown.PartitionStateLabels[2], wellknown.PartitionHealthy)),
		enginetest.Node("other-0", "other", enginetest.OnSubBlock("phys-b"), enginetest.Ready, enginetest.Partition("part-9", wellknown.PartitionHealthy)),
	)
	e := newTestPools(enginetest.NewCompute().WithFixtureBlock(), g, nil,
		withInventory(newInventory(t, kube)), refusingKubernetes(t, "reads take the nodes from the inventory"))
	got, err := e.Read(t.Context(), testPoolID)
	if err != nil {
		t.Fatalf("ReadNodePool: %v", err)
	}
	if !reflect.DeepEqual(got.NodeNames, []string{"slice-a-0", "slice-a-1"}) || got.ReadyNodes != 2 {
		t.Errorf("nodes = %v with %d Ready, want slice-a-0 and slice-a-1, both Ready", got.NodeNames, got.ReadyNodes)
	}
	if got.PartitionID != "part-5" || got.PartitionState != wellknown.PartitionHealthy || got.SubBlock != "sb-c" {
		t.Errorf("partition %q %q on sub-block %q, want part-5 HEALTHY on sb-c", got.PartitionID, got.PartitionState, got.SubBlock)
	}
}

func TestReadNodePoolInventoryFails(t *testing.T) {
	t.Parallel()
	g := enginetest.NewGKE()
	g.Pools[testPoolID] = storedPool("projects/proj/reservations/res/reservationBlocks/block-1")
	e := newTestPools(enginetest.NewCompute(), g, nil, inventoryFails(errors.New("cluster credentials expired")))
	_, err := e.Read(t.Context(), testPoolID)
	testsupport.WantContains(t, err, "listing the nodes of node pool "+testPoolID+": cluster credentials expired")
}

// Reads of many pools share one list per cluster; a pool the list lacks,
// a failed list and the read right after a create get the pool instead;
// a create or delete in this process makes the next read list again.
func TestNodePoolReadsShareOneList(t *testing.T) {
	t.Parallel()
	subBlockPath := "projects/proj/reservations/res/reservationBlocks/block-1/reservationSubBlocks/sb-b"
	g := enginetest.NewGKE()
	ids := []string{testPoolID}
	g.Pools[testPoolID] = storedPool(subBlockPath)
	for _, name := range []string{"pool-b", "pool-c"} {
		p := storedPool(subBlockPath)
		p.Name = name
		id := strings.TrimSuffix(testPoolID, testPoolName) + name
		g.Pools[id] = p
		ids = append(ids, id)
	}
	kube, _ := enginetest.NewKube()
	e := newTestPools(enginetest.NewCompute().WithFixtureBlock(), g, kube)
	count := func(event string) int {
		n := 0
		for _, ev := range g.EventLog() {
			if ev == event {
				n++
			}
		}
		return n
	}

	for _, id := range ids {
		p, err := e.Read(t.Context(), id)
		if err != nil {
			t.Fatalf("ReadNodePool(%s): %v", id, err)
		}
		if p.ID != id || p.MachineType != "tpu7x-standard-4t" || p.SubBlock != "sb-b" {
			t.Errorf("ReadNodePool(%s) = %+v", id, p)
		}
	}
	if lists, gets := count("listNodePools"), g.PoolGets; lists != 1 || gets != 0 {
		t.Errorf("3 reads made %d lists and %d gets, want 1 and 0", lists, gets)
	}

	// Not in the list: a get says whether it is gone.
	if _, err := e.Read(t.Context(), strings.TrimSuffix(testPoolID, testPoolName)+"gone"); !errors.Is(err, kernel.ErrNotFound) {
		t.Errorf("a pool missing from the list: %v, want kernel.ErrNotFound", err)
	}
	if g.PoolGets != 1 {
		t.Errorf("%d gets for a pool missing from the list, want 1", g.PoolGets)
	}

	// A delete in this process: the next read lists again and sees it gone.
	if err := e.Delete(t.Context(), ids[2]); err != nil {
		t.Fatal(err)
	}
	g.Mu.Lock()
	delete(g.Pools, ids[2])
	g.Mu.Unlock()
	if _, err := e.Read(t.Context(), ids[1]); err != nil {
		t.Fatal(err)
	}
	if lists := count("listNodePools"); lists != 2 {
		t.Errorf("%d lists after a delete, want 2", lists)
	}

	// A failed list falls back to a get, and is not kept.
	e.reads.PoolsChanged(ids[0]) // the next read lists again
	g.ListErr = errors.New("permission denied on nodePools.list")
	if _, err := e.Read(t.Context(), ids[0]); err != nil {
		t.Fatalf("ReadNodePool with a failing list: %v", err)
	}
	g.ListErr = nil
	if _, err := e.Read(t.Context(), ids[0]); err != nil {
		t.Fatal(err)
	}
	if lists, gets := count("listNodePools"), g.PoolGets; lists != 4 || gets != 2 {
		t.Errorf("after a failed list: %d lists and %d gets, want 4 and 2", lists, gets)
	}
}
