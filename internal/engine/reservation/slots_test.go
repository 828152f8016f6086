package reservation

import (
	"errors"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func testSlot(name, state, host, vm string) *computepb.ReservationSlot {
	s := &computepb.ReservationSlot{Name: proto.String(name), State: proto.String(state),
		PhysicalTopology: &computepb.ReservationSlotPhysicalTopology{Host: proto.String(host)},
		Status:           &computepb.ReservationSlotStatus{}}
	if vm != "" {
		s.Status.RunningInstances = []string{"https://www.googleapis.com/compute/v1/projects/p/zones/z/instances/" + vm}
	}
	return s
}

// A sub-block's slots (or a block's, in the order of its sub-blocks' names)
// tell each host's state and VM, and the node on it when the nodes are
// read; an unknown sub-block names the known ones; a failed node read
// leaves the slots.
func TestReadSlots(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute().WithFixtureBlock()
	key := enginetest.Project + "/" + enginetest.Zone + "/" + enginetest.Reservation + "/" + enginetest.Block
	c.Slots = map[string][]*computepb.ReservationSlot{
		key + "/sb-b": {testSlot("slot-00", "ACTIVE", "host-b0", "vm-b0"), testSlot("slot-01", "UNAVAILABLE", "host-b1", "vm-b1")},
		key + "/sb-a": {testSlot("slot-00", "ACTIVE", "host-a0", "")},
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "vm-b1", Labels: map[string]string{wellknown.LabelTopologyHost: "host-b1"}}}
	r := New(c, clusterFake{nodes: []*corev1.Node{node}})
	ctx := t.Context()
	got, err := r.ReadSlots(ctx, enginetest.Project, enginetest.Zone, enginetest.Reservation, enginetest.Block, "sb-b", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].State != "UNAVAILABLE" || got[1].Instance != "vm-b1" || got[1].Node != "vm-b1" || got[0].Node != "" ||
		got[0].PhysicalHost != "host-b0" || got[0].SubBlock != "sb-b" || got[0].PhysicalSubBlock != "phys-b" {
		t.Errorf("slots of sb-b: %+v", got)
	}
	all, err := r.ReadSlots(ctx, enginetest.Project, enginetest.Zone, enginetest.Reservation, enginetest.Block, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || all[0].SubBlock != "sb-a" || all[1].SubBlock != "sb-b" || all[1].Node != "" {
		t.Errorf("slots of the block: %+v", all)
	}
	_, err = r.ReadSlots(ctx, enginetest.Project, enginetest.Zone, enginetest.Reservation, enginetest.Block, "sb-z", false)
	if err == nil || !strings.Contains(err.Error(), "its sub-blocks are: sb-a, sb-b, sb-c") {
		t.Errorf("unknown sub-block: %v", err)
	}
	failing := New(c, clusterFake{nodesErr: errors.New("no cluster")})
	got, err = failing.ReadSlots(ctx, enginetest.Project, enginetest.Zone, enginetest.Reservation, enginetest.Block, "sb-b", true)
	var nre *NodeReadError
	if !errors.As(err, &nre) || len(got) != 2 {
		t.Errorf("failed node read: %d slots, %v; want the 2 slots and a NodeReadError", len(got), err)
	}
}

// A sub-block's topology state comes from acceleratorTopologiesInfo; one
// Compute Engine does not report is told by its use.
func TestSubBlockAvailable(t *testing.T) {
	t.Parallel()
	info := func(state string) *computepb.ReservationSubBlock {
		return &computepb.ReservationSubBlock{AcceleratorTopologiesInfo: &computepb.AcceleratorTopologiesInfo{AcceleratorTopologyInfos: []*computepb.AcceleratorTopologiesInfoAcceleratorTopologyInfo{{
			AcceleratorTopology:   proto.String("4x4x4"),
			InfoPerTopologyStates: []*computepb.AcceleratorTopologiesInfoAcceleratorTopologyInfoInfoPerTopologyState{{State: proto.String(state), Count: proto.Int32(1)}},
		}}}}
	}
	for state, want := range map[string]bool{"AVAILABLE": true, "RUNNING": false, "DEGRADED": false, "UNHEALTHY": false} {
		topo, st := topologyOf(info(state))
		if topo != "4x4x4" || st != state || (SubBlock{TopologyState: st}).Available() != want {
			t.Errorf("%s: read %q %q, available %v, want %v", state, topo, st, !want, want)
		}
	}
	if topo, st := topologyOf(&computepb.ReservationSubBlock{}); topo != "" || st != "" || !(SubBlock{}).Available() || (SubBlock{InUseCount: 16}).Available() {
		t.Errorf("no topology reported: %q %q", topo, st)
	}
}
