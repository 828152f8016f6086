package reservation

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	container "google.golang.org/api/container/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// targetPool is a pool of the fixture's zone whose reservation affinity
// is target ("": none).
func targetPool(name, target string) *container.NodePool {
	p := &container.NodePool{Name: name, Locations: []string{enginetest.Zone}, Config: &container.NodeConfig{}}
	if target != "" {
		p.Config.ReservationAffinity = &container.ReservationAffinity{ConsumeReservationType: "SPECIFIC_RESERVATION", Values: []string{target}}
	}
	return p
}

func hostNode(name, host string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{wellknown.LabelTopologyHost: host}}}
}

// A partition's hosts are told from its nodes' host labels; with slots,
// each host's reservation slot and state, from one list per sub-block: a
// pool's sub-block by name, or, for a pool that targets the block, the
// sub-block whose physical ID its nodes carry. A pool with no reservation
// target leaves its hosts without slots, beside a SlotReadError naming it;
// nodes that cannot be read are a NodeReadError.
func TestHostsOf(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute().WithFixtureBlock()
	key := enginetest.Project + "/" + enginetest.Zone + "/" + enginetest.Reservation + "/" + enginetest.Block
	c.Slots = map[string][]*computepb.ReservationSlot{
		key + "/sb-b": {testSlot("slot-00", "ACTIVE", "host-b0", "node-b0"), testSlot("slot-01", "UNAVAILABLE", "host-b1", "node-b1")},
		key + "/sb-a": {testSlot("slot-00", "ACTIVE", "host-a0", "node-a0")},
	}
	blockPath := "projects/" + enginetest.Project + "/reservations/" + enginetest.Reservation + "/reservationBlocks/" + enginetest.Block
	reads := clusterFake{
		cluster: "projects/proj/locations/us-central1/clusters/" + enginetest.Cluster,
		pools: []*container.NodePool{
			targetPool("pool-b", blockPath+"/reservationSubBlocks/sb-b"), targetPool("pool-a", blockPath), targetPool("pool-x", ""),
		},
		nodes: []*corev1.Node{hostNode("node-b0", "host-b0"), hostNode("node-b1", "host-b1"), hostNode("node-a0", "host-a0"), hostNode("node-x0", "host-x0")},
	}
	groups := []NodeGroup{
		{NodePool: "pool-b", PhysicalSubBlock: "phys-b", Nodes: []string{"node-b0", "node-b1"}},
		{NodePool: "pool-b", PhysicalSubBlock: "phys-b", Nodes: []string{"node-b1"}}, // a sub-slice partition of the same sub-block
		{NodePool: "pool-a", PhysicalSubBlock: "phys-a", Nodes: []string{"node-a0"}},
		{NodePool: "pool-x", PhysicalSubBlock: "phys-x", Nodes: []string{"node-x0"}},
	}
	r := New(c, reads)
	got, err := r.HostsOf(t.Context(), groups, false)
	if err != nil || c.SlotLists != 0 {
		t.Fatalf("hosts without slots: %v, %d slot lists", err, c.SlotLists)
	}
	if want := []Host{{Node: "node-b0", PhysicalHost: "host-b0"}, {Node: "node-b1", PhysicalHost: "host-b1"}}; !reflect.DeepEqual(got[0], want) {
		t.Errorf("hosts of pool-b without slots: %+v, want %+v", got[0], want)
	}

	got, err = r.HostsOf(t.Context(), groups, true)
	want := [][]Host{
		{{Node: "node-b0", PhysicalHost: "host-b0", Slot: "slot-00", SlotState: "ACTIVE"}, {Node: "node-b1", PhysicalHost: "host-b1", Slot: "slot-01", SlotState: "UNAVAILABLE"}},
		{{Node: "node-b1", PhysicalHost: "host-b1", Slot: "slot-01", SlotState: "UNAVAILABLE"}},
		{{Node: "node-a0", PhysicalHost: "host-a0", Slot: "slot-00", SlotState: "ACTIVE"}},
		{{Node: "node-x0", PhysicalHost: "host-x0"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("hosts with slots: %+v, want %+v", got, want)
	}
	var slotErr *SlotReadError
	if !errors.As(err, &slotErr) || !strings.Contains(err.Error(), "node pool pool-x targets no reservation block") {
		t.Errorf("pool-x without a reservation target: %v, want a SlotReadError naming it", err)
	}
	if c.SlotLists != 2 {
		t.Errorf("%d slot lists, want 2: one per sub-block", c.SlotLists)
	}

	unknown := New(c, clusterFake{cluster: reads.cluster, pools: reads.pools, nodes: reads.nodes})
	_, err = unknown.HostsOf(t.Context(), []NodeGroup{{NodePool: "pool-a", PhysicalSubBlock: "phys-z", Nodes: []string{"node-a0"}}}, true)
	if !errors.As(err, &slotErr) || !strings.Contains(err.Error(), `no sub-block of reservation block res/block-1 has the physical ID "phys-z"`) {
		t.Errorf("nodes on no sub-block of the block: %v", err)
	}
	failing := New(c, clusterFake{nodesErr: errors.New("no cluster")})
	var nodesErr *NodeReadError
	if _, err := failing.HostsOf(t.Context(), groups, true); !errors.As(err, &nodesErr) {
		t.Errorf("nodes not read: %v, want a NodeReadError", err)
	}
}
