package engine

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

const subBlockPoolsCluster = "projects/" + enginetest.Project + "/locations/" + enginetest.Zone + "/clusters/" + enginetest.Cluster

// targetPool adds to g a pool of subBlockPoolsCluster whose reservation
// affinity is path.
func targetPool(g *enginetest.GKE, name, path string) {
	p := &container.NodePool{Name: name, Status: "PROVISIONING", Config: &container.NodeConfig{}}
	if path != "" {
		p.Config.ReservationAffinity = &container.ReservationAffinity{ConsumeReservationType: "SPECIFIC_RESERVATION", Values: []string{path}}
	}
	g.Pools[subBlockPoolsCluster+"/nodePools/"+name] = p
}

func blockPath(subBlock string) string {
	p := "projects/" + enginetest.Project + "/reservations/" + enginetest.Reservation + "/reservationBlocks/" + enginetest.Block
	if subBlock != "" {
		p += "/reservationSubBlocks/" + subBlock
	}
	return p
}

func poolsBySubBlock(b *reservation.Block) map[string]string {
	out := map[string]string{}
	for _, s := range b.SubBlocks {
		out[s.Name] = s.NodePool
	}
	return out
}

// forbidNodeLists makes every list of nodes fail.
func forbidNodeLists(kube interface {
	PrependReactor(verb, resource string, reaction k8stesting.ReactionFunc)
}) {
	kube.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("nodes is forbidden")
	})
}

// Every sub-block in use is named by one of the cluster's pools: the read
// takes them from GKE's pool list, even pools whose nodes do not exist
// yet, and never waits for the nodes (whose list fails here). It starts
// the node inventory for the reads that follow.
func TestReservationBlockWithPoolsFromThePoolList(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute()
	fillBlock(c)
	g := enginetest.NewGKE()
	targetPool(g, "pool-a", blockPath("sb-a"))
	targetPool(g, "pool-b", blockPath("sb-b"))
	targetPool(g, "pool-c", blockPath("sb-c"))
	targetPool(g, "default-pool", "")
	targetPool(g, "elsewhere", "projects/"+enginetest.Project+"/reservations/"+enginetest.Reservation+"/reservationBlocks/block-2/reservationSubBlocks/sb-a")
	targetPool(g, "other-project", "projects/p2/reservations/"+enginetest.Reservation+"/reservationBlocks/"+enginetest.Block+"/reservationSubBlocks/sb-a")
	kube, _ := enginetest.NewKube()
	forbidNodeLists(kube)
	e := newTestEngine(c, g, nil, boundTo(subBlockPoolsCluster), withInventory(newInventory(t, kube)))
	b, err := fixtureBlockWithPools(t, e)
	if err != nil {
		t.Fatalf("ReservationBlockWithPools: %v", err)
	}
	if got, want := poolsBySubBlock(b), map[string]string{"sb-a": "pool-a", "sb-b": "pool-b", "sb-c": "pool-c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("node pools by sub-block = %v, want %v", got, want)
	}
	// Started, the inventory lists the nodes (the API server refuses it).
	testsupport.Poll(t, 5*time.Second, 10*time.Millisecond, "the node inventory started for the reads that follow", func() (bool, string, error) {
		for _, a := range kube.Actions() {
			if a.GetVerb() == "list" && a.GetResource().Resource == "nodes" {
				return true, "", nil
			}
		}
		return false, fmt.Sprintf("%d requests, no list of the nodes", len(kube.Actions())), nil
	})
}

// A sub-block in use that no pool names (a pool that targets the whole
// block, where GKE chose the sub-block) is found from the nodes; a free
// one that no pool names needs no node list.
func TestReservationBlockWithPoolsNodesForUnnamedSubBlocks(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute()
	c.SetBlock(enginetest.SubBlock("sb-a", 0, "phys-a"), enginetest.SubBlock("sb-b", 16, "phys-b"), enginetest.SubBlock("sb-c", 16, "phys-c"))
	g := enginetest.NewGKE()
	targetPool(g, "pool-b", blockPath("sb-b"))
	targetPool(g, "by-hand", blockPath(""))
	kube, _ := enginetest.NewKube(enginetest.Node("c-1", "by-hand", enginetest.OnSubBlock("phys-c")))
	e := newTestEngine(c, g, kube, boundTo(subBlockPoolsCluster))
	b, err := fixtureBlockWithPools(t, e)
	if err != nil {
		t.Fatalf("ReservationBlockWithPools: %v", err)
	}
	if got, want := poolsBySubBlock(b), map[string]string{"sb-a": "", "sb-b": "pool-b", "sb-c": "by-hand"}; !reflect.DeepEqual(got, want) {
		t.Errorf("node pools by sub-block = %v, want %v", got, want)
	}

	// The same in-use sub-block with the nodes unreadable (an engine
	// whose inventory's first list keeps failing): the read fails, naming
	// what it was doing, rather than leave node_pool empty.
	forbidNodeLists(kube)
	unread := newTestEngine(c, g, kube, boundTo(subBlockPoolsCluster), unlistedNodesFail)
	_, err = fixtureBlockWithPools(t, unread)
	testsupport.WantContains(t, err, "listing nodes to find the node pools on reservation block res/block-1: "+
		"cannot read the cluster's nodes: ", "nodes is forbidden")

	// A block whose only unnamed sub-block is free reads no node (an
	// engine of its own, which has not read the block before).
	c.SetBlock(enginetest.SubBlock("sb-a", 0, "phys-a"), enginetest.SubBlock("sb-b", 16, "phys-b"))
	e = newTestEngine(c, g, kube, boundTo(subBlockPoolsCluster))
	if b, err = fixtureBlockWithPools(t, e); err != nil {
		t.Fatalf("ReservationBlockWithPools with only a free sub-block unnamed: %v", err)
	}
	if got, want := poolsBySubBlock(b), map[string]string{"sb-a": "", "sb-b": "pool-b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("node pools by sub-block = %v, want %v", got, want)
	}
}

// A pool list that fails leaves every sub-block to the nodes.
func TestReservationBlockWithPoolsPoolListFails(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute().WithFixtureBlock() // sb-b in use
	g := enginetest.NewGKE()
	g.ListErr = errors.New("container.nodePools.list denied")
	kube, _ := enginetest.NewKube(enginetest.Node("b-1", "pool-b", enginetest.OnSubBlock("phys-b")))
	b, err := fixtureBlockWithPools(t, newTestEngine(c, g, kube, boundTo(subBlockPoolsCluster)))
	if err != nil {
		t.Fatalf("ReservationBlockWithPools: %v", err)
	}
	if got, want := poolsBySubBlock(b), map[string]string{"sb-a": "", "sb-b": "pool-b", "sb-c": ""}; !reflect.DeepEqual(got, want) {
		t.Errorf("node pools by sub-block = %v, want %v", got, want)
	}
}

// gke_reservation_sub_blocks' one read: the block with its pools, and
// each sub-block's maintenance, from the same read of the block.
func TestReservationSubBlocks(t *testing.T) {
	t.Parallel()
	kube, _ := enginetest.NewKube(enginetest.Node("b-1", "pool-b", enginetest.OnSubBlock("phys-b"), enginetest.Ready))
	c := enginetest.NewCompute().WithFixtureBlock()
	got, err := newTestEngine(c, enginetest.NewGKE(), kube).Reservations().ReadSubBlocks(t.Context(), enginetest.Project, enginetest.Zone, enginetest.Reservation, enginetest.Block)
	if err != nil {
		t.Fatalf("ReservationSubBlocks: %v", err)
	}
	if len(got.Maintenance) != len(got.Block.SubBlocks) || len(got.Maintenance) == 0 {
		t.Fatalf("%d sub-blocks, %d maintenance entries; want one each", len(got.Block.SubBlocks), len(got.Maintenance))
	}
	for i, s := range got.Block.SubBlocks {
		if got.Maintenance[i].SubBlock != s.Name {
			t.Errorf("maintenance %d is of %q, want %q", i, got.Maintenance[i].SubBlock, s.Name)
		}
	}
	var maint *reservation.MaintenanceReadError
	_, err = newTestEngine(enginetest.NewCompute(), enginetest.NewGKE(), kube).Reservations().ReadSubBlocks(t.Context(), enginetest.Project, enginetest.Zone, enginetest.Reservation, enginetest.Block)
	if err == nil || errors.As(err, &maint) {
		t.Errorf("ReservationSubBlocks of a missing block = %v, want the block's error", err)
	}
}
