package engine

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"testing"

	"google.golang.org/api/googleapi"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func subBlockNames(b *reservation.Block) []string {
	var out []string
	for _, s := range b.SubBlocks {
		out = append(out, s.Name)
	}
	return out
}

func TestTargetPath(t *testing.T) {
	t.Parallel()
	block := reservation.Target{Project: "p", Zone: "us-central1-a", Reservation: "r", Block: "b"}
	if got, want := block.Path(), "projects/p/reservations/r/reservationBlocks/b"; got != want {
		t.Errorf("block Path() = %q, want %q", got, want)
	}
	sub := block
	sub.SubBlock = "s"
	if got, want := sub.Path(), "projects/p/reservations/r/reservationBlocks/b/reservationSubBlocks/s"; got != want {
		t.Errorf("sub-block Path() = %q, want %q", got, want)
	}
}

func TestReservationBlock(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute().WithFixtureBlock()
	b, err := newTestEngine(c, enginetest.NewGKE(), nil).res.Block(t.Context(), enginetest.Project, enginetest.Zone, enginetest.Reservation, enginetest.Block)
	if err != nil {
		t.Fatalf("ReservationBlock: %v", err)
	}
	if got, want := subBlockNames(b), []string{"sb-a", "sb-b", "sb-c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("sub-blocks = %v, want sorted %v", got, want)
	}
	if b.Project != enginetest.Project || b.Zone != enginetest.Zone || b.Reservation != enginetest.Reservation || b.Name != enginetest.Block {
		t.Errorf("block identity = %s/%s/%s/%s", b.Project, b.Zone, b.Reservation, b.Name)
	}
	if b.SubBlockCount != 3 || b.SubBlockInUseCount != 1 {
		t.Errorf("counts = %d/%d in use, want 1/3", b.SubBlockInUseCount, b.SubBlockCount)
	}
	want := reservation.SubBlock{
		Name: "sb-b", Count: 16, InUseCount: 16, Health: "HEALTHY", HealthyHostCount: 15, DegradedHostCount: 1,
		PhysicalSubBlock: "phys-b", Status: "READY",
		Path:        "projects/proj/reservations/res/reservationBlocks/block-1/reservationSubBlocks/sb-b",
		Maintenance: reservation.SubBlockMaintenance{SubBlock: "sb-b", PhysicalSubBlock: "phys-b", Status: reservation.MaintenanceNone},
	}
	if b.SubBlocks[1] != want {
		t.Errorf("sub-block sb-b = %+v\nwant %+v", b.SubBlocks[1], want)
	}
	if b.SubBlocks[1].Free() || !b.SubBlocks[0].Free() {
		t.Error("Free() is wrong: sb-b is in use, sb-a is free")
	}
	if got, want := b.FreeSubBlocks(), []string{"sb-a", "sb-c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("FreeSubBlocks() = %v, want %v", got, want)
	}
}

func TestReservationBlockWithoutHealthOrTopology(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute()
	bare := enginetest.SubBlock("sb-x", 0, "")
	bare.HealthInfo, bare.PhysicalTopology = nil, nil
	c.SetBlock(bare)
	b, err := newTestEngine(c, enginetest.NewGKE(), nil).res.Block(t.Context(), enginetest.Project, enginetest.Zone, enginetest.Reservation, enginetest.Block)
	if err != nil {
		t.Fatalf("ReservationBlock: %v", err)
	}
	if s := b.SubBlocks[0]; s.Health != "" || s.PhysicalSubBlock != "" || s.Name != "sb-x" {
		t.Errorf("sub-block = %+v", s)
	}
}

func TestCheckTarget(t *testing.T) {
	t.Parallel()
	target := func(res, block, sub string) reservation.Target {
		return reservation.Target{Project: enginetest.Project, Zone: enginetest.Zone, Reservation: res, Block: block, SubBlock: sub}
	}
	forbidden := &googleapi.Error{Code: http.StatusForbidden, Message: "Required 'compute.reservations.get' permission"}
	for _, tc := range []struct {
		name    string
		setup   func(*enginetest.Compute)
		target  reservation.Target
		wantErr []string
	}{
		{name: "free sub-block", target: target(enginetest.Reservation, enginetest.Block, "sb-a")},
		{name: "block with a free sub-block", target: target(enginetest.Reservation, enginetest.Block, "")},
		{name: "unknown reservation", target: target("nope", enginetest.Block, "sb-a"),
			wantErr: []string{`reservation "nope" was not found in projects/proj/zones/us-central1-a`, "reservations are zonal"}},
		{name: "reservation unreadable", setup: func(c *enginetest.Compute) { c.ReservationErr = forbidden }, target: target(enginetest.Reservation, enginetest.Block, "sb-a"),
			wantErr: []string{"reading reservation res: Required 'compute.reservations.get' permission"}},
		{name: "unknown block", target: target(enginetest.Reservation, "block-9", ""),
			wantErr: []string{`reservation block "block-9" was not found in reservation "res" (projects/proj/zones/us-central1-a)`}},
		{name: "block unreadable", setup: func(c *enginetest.Compute) { c.BlockErr = forbidden }, target: target(enginetest.Reservation, enginetest.Block, ""),
			wantErr: []string{"reading reservation block res/block-1: Required"}},
		{name: "sub-blocks unlistable", setup: func(c *enginetest.Compute) { c.ListErr = errors.New("backend error") }, target: target(enginetest.Reservation, enginetest.Block, "sb-a"),
			wantErr: []string{"listing the sub-blocks of reservation block res/block-1: backend error"}},
		{name: "unknown sub-block", target: target(enginetest.Reservation, enginetest.Block, "sb-z"),
			wantErr: []string{`reservation sub-block "sb-z" was not found in block "block-1" of reservation "res"; its sub-blocks are: sb-a, sb-b, sb-c`}},
		{name: "sub-block in use", target: target(enginetest.Reservation, enginetest.Block, "sb-b"),
			wantErr: []string{`reservation sub-block "sb-b" of block "block-1" is already in use by node pool holder-pool (16 of 16 hosts); free sub-blocks: sb-a, sb-c`}},
		{name: "full block", setup: fillBlock, target: target(enginetest.Reservation, enginetest.Block, ""),
			wantErr: []string{`reservation block "block-1" of reservation "res" has no free sub-block: all 3 are in use`, "target another block"}},
		{name: "sub-block of a full block", setup: fillBlock, target: target(enginetest.Reservation, enginetest.Block, "sb-a"),
			wantErr: []string{`"sb-a" of block "block-1" is already in use (16 of 16 hosts); free sub-blocks: none`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := enginetest.NewCompute().WithFixtureBlock()
			if tc.setup != nil {
				tc.setup(c)
			}
			kube, _ := enginetest.NewKube(enginetest.Node("holder-0", "holder-pool", enginetest.OnSubBlock("phys-b")))
			b, err := newTestEngine(c, enginetest.NewGKE(), kube).res.CheckTarget(t.Context(), tc.target, "")
			if len(tc.wantErr) > 0 {
				testsupport.WantContains(t, err, tc.wantErr...)
				if b != nil {
					t.Errorf("checkTarget returned a block with its error: %+v", b)
				}
				return
			}
			if err != nil {
				t.Fatalf("checkTarget(%+v): %v", tc.target, err)
			}
			if b.Name != tc.target.Block || len(b.SubBlocks) != 3 {
				t.Errorf("checkTarget returned block %q with %d sub-blocks, want %q with 3", b.Name, len(b.SubBlocks), tc.target.Block)
			}
		})
	}
}

// fillBlock puts VMs on every sub-block of the fixture's block.
func fillBlock(c *enginetest.Compute) {
	c.SetBlock(enginetest.SubBlock("sb-a", 16, "phys-a"), enginetest.SubBlock("sb-b", 16, "phys-b"), enginetest.SubBlock("sb-c", 16, "phys-c"))
}

func TestReservationBlockWithPools(t *testing.T) {
	t.Parallel()
	kube, _ := enginetest.NewKube(
		enginetest.Node("b-1", "pool-b", enginetest.OnSubBlock("phys-b"), enginetest.Ready),
		enginetest.Node("b-2", "pool-b", enginetest.OnSubBlock("phys-b")),
		enginetest.Node("c-1", "pool-c", enginetest.OnSubBlock("phys-c")),
		enginetest.Node("cpu-1", "default-pool"),                                  // no topology label
		enginetest.Node("other-1", "pool-other", enginetest.OnSubBlock("phys-z")), // another block's sub-block
	)
	// A node with a topology label but no pool label is not a pool's.
	stray := enginetest.Node("stray", "", enginetest.OnSubBlock("phys-a"))
	delete(stray.Labels, wellknown.LabelNodePool)
	if err := kube.Tracker().Add(stray); err != nil {
		t.Fatal(err)
	}
	c := enginetest.NewCompute().WithFixtureBlock()
	b, err := fixtureBlockWithPools(t, newTestEngine(c, enginetest.NewGKE(), kube))
	if err != nil {
		t.Fatalf("ReservationBlockWithPools: %v", err)
	}
	got := map[string]string{}
	for _, s := range b.SubBlocks {
		got[s.Name] = s.NodePool
	}
	want := map[string]string{"sb-a": "", "sb-b": "pool-b", "sb-c": "pool-c"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("node pools by sub-block = %v, want %v", got, want)
	}
}

func TestReservationBlockWithPoolsSubBlockWithoutTopology(t *testing.T) {
	t.Parallel()
	kube, _ := enginetest.NewKube(enginetest.Node("n", "pool-x", enginetest.OnSubBlock("")))
	c := enginetest.NewCompute()
	bare := enginetest.SubBlock("sb-a", 0, "")
	bare.PhysicalTopology = nil
	c.SetBlock(bare)
	b, err := fixtureBlockWithPools(t, newTestEngine(c, enginetest.NewGKE(), kube))
	if err != nil {
		t.Fatalf("ReservationBlockWithPools: %v", err)
	}
	if b.SubBlocks[0].NodePool != "" {
		t.Errorf("a sub-block without physical topology got node pool %q", b.SubBlocks[0].NodePool)
	}
}

func TestReservationBlockWithPoolsErrors(t *testing.T) {
	t.Parallel()
	t.Run("reservation missing", func(t *testing.T) {
		t.Parallel()
		kubeCalled := false
		e := newTestEngine(enginetest.NewCompute(), enginetest.NewGKE(), nil, withClients(func(context.Context) (kernel.Cluster, error) {
			kubeCalled = true
			return nil, errors.New("unexpected")
		}))
		_, err := fixtureBlockWithPools(t, e)
		testsupport.WantContains(t, err, `reservation "res" was not found`)
		if kubeCalled {
			t.Error("Kubernetes was asked for although the block could not be read")
		}
	})
	t.Run("no Kubernetes client", func(t *testing.T) {
		t.Parallel()
		e := newTestEngine(enginetest.NewCompute().WithFixtureBlock(), enginetest.NewGKE(), nil,
			inventoryFails(errors.New("cluster endpoint unreachable")))
		_, err := fixtureBlockWithPools(t, e)
		testsupport.WantContains(t, err, "cluster endpoint unreachable")
	})
	t.Run("node list fails", func(t *testing.T) {
		t.Parallel()
		kube, _ := enginetest.NewKube()
		kube.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, errors.New("nodes is forbidden")
		})
		// The inventory's first list keeps failing for FirstListTimeout.
		e := newTestEngine(enginetest.NewCompute().WithFixtureBlock(), enginetest.NewGKE(), kube, unlistedNodesFail)
		_, err := fixtureBlockWithPools(t, e)
		testsupport.WantContains(t, err, "listing nodes to find the node pools on reservation block res/block-1: "+
			"cannot read the cluster's nodes: ", "nodes is forbidden")
	})
}

func TestReservationBlockWithPoolsFromTheInventory(t *testing.T) {
	t.Parallel()
	kube, _ := enginetest.NewKube(
		enginetest.Node("b-1", "pool-b", enginetest.OnSubBlock("phys-b")),
		enginetest.Node("c-1", "pool-c", enginetest.OnSubBlock("phys-c")),
		enginetest.Node("cpu-1", "default-pool"),
	)
	e := newTestEngine(enginetest.NewCompute().WithFixtureBlock(), enginetest.NewGKE(), nil,
		withInventory(newInventory(t, kube)), refusingKubernetes(t, "the inventory has the nodes"))
	b, err := fixtureBlockWithPools(t, e)
	if err != nil {
		t.Fatalf("ReservationBlockWithPools: %v", err)
	}
	got := map[string]string{}
	for _, s := range b.SubBlocks {
		got[s.Name] = s.NodePool
	}
	if want := map[string]string{"sb-a": "", "sb-b": "pool-b", "sb-c": "pool-c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("node pools by sub-block = %v, want %v", got, want)
	}

	e = newTestEngine(enginetest.NewCompute().WithFixtureBlock(), enginetest.NewGKE(), nil, inventoryFails(errors.New("cluster credentials expired")))
	_, err = fixtureBlockWithPools(t, e)
	testsupport.WantContains(t, err, "listing nodes to find the node pools on reservation block res/block-1: cluster credentials expired")
}

// fixtureBlockWithPools reads the fixture's block with the pools of e's
// cluster on its sub-blocks, as gke_reservation_sub_blocks does.
func fixtureBlockWithPools(t *testing.T, e *Engine) (*reservation.Block, error) {
	t.Helper()
	return e.res.BlockWithPools(t.Context(), e.reads.Name(), enginetest.Project, enginetest.Zone, enginetest.Reservation, enginetest.Block)
}
