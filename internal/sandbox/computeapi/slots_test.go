package computeapi_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	computebeta "google.golang.org/api/compute/v0.beta"
	computev1 "google.golang.org/api/compute/v1"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

const slotsParent = "reservations/" + testReservation + "/reservationBlocks/block-a/reservationSubBlocks/sub-block-a1"

// holdSubBlock puts a pool of nodeCount nodes on a sub-block of the world,
// as a GKE create does, without its nodes (the tests run no Kubernetes).
func (e *env) holdSubBlock(t *testing.T, reservation, block, subBlock, pool string, nodeCount int) {
	t.Helper()
	e.w.Mu.Lock()
	defer e.w.Mu.Unlock()
	s := e.w.FindSubBlock(reservation, block, subBlock)
	if s == nil {
		t.Fatalf("no sub-block %s/%s/%s", reservation, block, subBlock)
	}
	e.w.NodePools[pool] = &cloud.NodePool{Name: pool, NodeCount: nodeCount, SubBlock: s, Status: "RUNNING"}
	s.NodePool = pool
}

// Every slot, and the sub-block with its topology states, carry the fields
// Compute Engine's do and no field compute/v1 or compute/beta does not
// define; a slot is found by name and by its ID.
func TestComputeReservationSlotsWholeObjects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.holdSubBlock(t, testReservation, "block-a", "sub-block-a1", "pool-1", cloud.HostsPerSubBlock)
	base := "compute/v1/projects/" + inv.Project + "/zones/" + inv.Zone + "/" + slotsParent
	status, list := e.get(t, base+"/reservationSlots")
	if status != 200 {
		t.Fatalf("list: %d %v", status, list)
	}
	wantOnlyAPIFields(t, "slot list", list, reflect.TypeFor[computev1.ReservationSlotsListResponse]())
	wantOnlyAPIFields(t, "slot list (beta)", list, reflect.TypeFor[computebeta.ReservationSlotsListResponse]())
	l := decodeInto[computev1.ReservationSlotsListResponse](t, list)
	if len(l.Items) != cloud.HostsPerSubBlock || l.Kind != "compute#reservationSlot" {
		t.Fatalf("list: kind %q, %d slots, want %d", l.Kind, len(l.Items), cloud.HostsPerSubBlock)
	}
	hosts := map[string]bool{}
	for i, s := range l.Items {
		if m := missing(map[string]bool{
			"kind": s.Kind == "compute#reservationSlot", "id": s.Id != 0, "creationTimestamp": s.CreationTimestamp != "",
			"name":             s.Name == cloud.SlotName(i),
			"selfLink":         strings.HasSuffix(s.SelfLink, "/"+slotsParent+"/reservationSlots/"+s.Name),
			"selfLinkWithId":   strings.HasSuffix(s.SelfLinkWithId, "/reservationSlots/"+idString(s.Id)),
			"zone":             strings.HasSuffix(s.Zone, "/zones/"+inv.Zone),
			"state":            s.State == "ACTIVE",
			"physicalTopology": s.PhysicalTopology != nil && s.PhysicalTopology.Host != "" && s.PhysicalTopology.SubBlock != "" && s.PhysicalTopology.Block != "" && s.PhysicalTopology.Cluster != "",
			"status": s.Status != nil && s.Status.PhysicalTopology != nil && s.Status.PhysicalTopology.Host == s.PhysicalTopology.Host &&
				len(s.Status.RunningInstances) == 1 && strings.HasSuffix(s.Status.RunningInstances[0], "/zones/"+inv.Zone+"/instances/"+e.w.NodeName("pool-1", i)),
			"shareSettings": s.ShareSettings != nil && s.ShareSettings.ShareType == "LOCAL",
		}); len(m) > 0 {
			t.Errorf("slot %d lacks %v", i, m)
		}
		if s.PhysicalTopology != nil {
			hosts[s.PhysicalTopology.Host] = true
		}
	}
	if len(hosts) != cloud.HostsPerSubBlock {
		t.Errorf("%d distinct physical hosts, want %d", len(hosts), cloud.HostsPerSubBlock)
	}
	for _, name := range []string{"slot-03", idString(l.Items[3].Id)} {
		status, got := e.get(t, base+"/reservationSlots/"+name)
		if status != 200 {
			t.Fatalf("get %s: %d %v", name, status, got)
		}
		wantOnlyAPIFields(t, "slot", got, reflect.TypeFor[computev1.ReservationSlotsGetResponse]())
		wantOnlyAPIFields(t, "slot (beta)", got, reflect.TypeFor[computebeta.ReservationSlotsGetResponse]())
		if r := decodeInto[computev1.ReservationSlotsGetResponse](t, got).Resource; r == nil || r.Name != "slot-03" {
			t.Errorf("get %s: %v, want slot-03", name, got)
		}
	}
	if status, _ := e.get(t, base+"/reservationSlots/slot-16"); status != http.StatusNotFound {
		t.Errorf("get slot-16: %d, want 404", status)
	}
	for what, c := range map[string]struct{ path, body, opType string }{
		"getHealth":  {base + "/reservationSlots/slot-00/getHealth", "", "getHealth"},
		"getVersion": {base + "/reservationSlots/slot-00/getVersion", `{"sbomSelections": ["SBOM_SELECTION_CURRENT"]}`, "getVersion"},
		"update":     {base + "/reservationSlots/slot-00?updateMask=shareSettings", `{"shareSettings": {"shareType": "LOCAL"}}`, "update"},
	} {
		status, op := e.post(t, c.path, c.body)
		if status != 200 {
			t.Fatalf("%s: %d %v", what, status, op)
		}
		wantOnlyAPIFields(t, what, op, reflect.TypeFor[computev1.Operation]())
		o := decodeInto[computev1.Operation](t, op)
		if o.OperationType != c.opType || !strings.HasSuffix(o.TargetLink, "/reservationSlots/slot-00") || o.Zone == "" {
			t.Errorf("%s: operation %+v", what, o)
		}
		if _, err := newComputeService(t, e).ZoneOperations.Wait(inv.Project, inv.Zone, o.Name).Context(testContext(t)).Do(); err != nil {
			t.Errorf("%s: waiting for %s: %v", what, o.Name, err)
		}
	}

	status, sub := e.get(t, "compute/v1/projects/"+inv.Project+"/zones/"+inv.Zone+"/"+slotsParent)
	if status != 200 {
		t.Fatalf("sub-block: %d %v", status, sub)
	}
	wantOnlyAPIFields(t, "sub-block", sub, reflect.TypeFor[computev1.ReservationSubBlocksGetResponse]())
	wantOnlyAPIFields(t, "sub-block (beta)", sub, reflect.TypeFor[computebeta.ReservationSubBlocksGetResponse]())
	s := decodeInto[computev1.ReservationSubBlocksGetResponse](t, sub).Resource
	if s.InUseHostCount != cloud.HostsPerSubBlock || topologyState(s.AcceleratorTopologiesInfo) != "RUNNING" {
		t.Errorf("held sub-block: inUseHostCount %d, topologies %+v; want 16 and 4x4x4 RUNNING", s.InUseHostCount, s.AcceleratorTopologiesInfo)
	}
}

// topologyState is the state of the 4x4x4 topology of a sub-block, when it
// has exactly one topology in exactly one state of count 1.
func topologyState(info *computev1.AcceleratorTopologiesInfo) string {
	if info == nil || len(info.AcceleratorTopologyInfos) != 1 || info.AcceleratorTopologyInfos[0].AcceleratorTopology != "4x4x4" {
		return ""
	}
	st := info.AcceleratorTopologyInfos[0].InfoPerTopologyStates
	if len(st) != 1 || st[0].Count != 1 {
		return ""
	}
	return st[0].State
}

// Bodies the slot methods refuse, as Compute Engine refuses them; every
// slot request counts as a reservationSlots request, none as a
// reservationSubBlocks one.
func TestComputeReservationSlotsRequests(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	base := "compute/v1/projects/" + inv.Project + "/zones/" + inv.Zone + "/" + slotsParent + "/reservationSlots/slot-00"
	if status, _ := e.get(t, "compute/v1/projects/"+inv.Project+"/zones/"+inv.Zone+"/"+slotsParent+"/reservationSlots"); status != http.StatusOK {
		t.Fatalf("list of slots: %d", status)
	}
	if status, _ := e.get(t, base); status != http.StatusOK {
		t.Fatalf("get of a slot: %d", status)
	}
	if slots, subs := e.requests("compute GET reservationSlots"), e.requests("compute GET reservationSubBlocks"); slots != 2 || subs != 0 {
		t.Errorf("counted %d GET reservationSlots and %d GET reservationSubBlocks; want 2 and 0", slots, subs)
	}
	for _, c := range []struct{ path, body, want string }{
		{base + "/getVersion", `{"sbomSelections": ["LATEST"]}`, "sbomSelections[0]"},
		{base + "/getVersion", `{"sbom": []}`, "unknown field"},
		{base, `{"shareSettings": {"shareType": "SPECIFIC_PROJECTS"}}`, "own project only"},
		{base + "?updateMask=name", `{}`, "Only shareSettings"},
	} {
		status, got := e.post(t, c.path, c.body)
		if status != http.StatusBadRequest || !strings.Contains(errorMessage(got), c.want) {
			t.Errorf("POST %s %s: %d %v, want 400 saying %q", c.path, c.body, status, got, c.want)
		}
	}
	if n := e.requests("compute POST reservationSlots"); n != 4 {
		t.Errorf("counted %d POST reservationSlots; want the 4 above", n)
	}
	if status, _ := e.get(t, "compute/v1/projects/"+inv.Project+"/zones/"+inv.Zone+"/reservations/"+testReservation+
		"/reservationBlocks/block-a/reservationSubBlocks/sub-block-a9/reservationSlots"); status != http.StatusNotFound {
		t.Errorf("slots of an unknown sub-block: %d, want 404", status)
	}
}

func errorMessage(body map[string]any) string {
	e, _ := body["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}

// Through the real Go client (REST): the slots of a held sub-block run the
// pool's VMs, those of a free one none; a fault reported on a sub-block makes
// its slots UNAVAILABLE and its topology DEGRADED until it is repaired, when
// it is AVAILABLE again; getHealth answers an operation the client waits
// for.
func TestComputeReservationSlotsFollowTheWorld(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setFaults(cloud.Faults{FaultyRepairMs: 3000})
	repair := e.hold(cloud.DelayRepair)
	ctx := testContext(t)
	slots := newComputeClient(t, e, compute.NewReservationSlotsRESTClient)
	subs := newComputeClient(t, e, compute.NewReservationSubBlocksRESTClient)
	e.holdSubBlock(t, maintReservation, maintBlock, "sub-block-c1", "pool-c1", 8)

	list := func(sub string) []*computepb.ReservationSlot {
		t.Helper()
		it := slots.List(ctx, &computepb.ListReservationSlotsRequest{Project: inv.Project, Zone: inv.Zone, ParentName: maintParent + "/reservationSubBlocks/" + sub, MaxResults: proto.Uint32(5)})
		var out []*computepb.ReservationSlot
		for {
			s, err := it.Next()
			if err == iterator.Done {
				return out
			}
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
	}
	state := func(sub string) string {
		t.Helper()
		infos := getMaintSubBlock(ctx, t, subs, sub).GetAcceleratorTopologiesInfo().GetAcceleratorTopologyInfos()
		if len(infos) != 1 || len(infos[0].GetInfoPerTopologyStates()) != 1 {
			t.Fatalf("sub-block %s: topologies %v", sub, infos)
		}
		return infos[0].GetInfoPerTopologyStates()[0].GetState()
	}
	held := list("sub-block-c1")
	if len(held) != cloud.HostsPerSubBlock {
		t.Fatalf("%d slots over pages of 5, want %d", len(held), cloud.HostsPerSubBlock)
	}
	for h, s := range held {
		want := 0
		if h < 8 {
			want = 1
		}
		if got := len(s.GetStatus().GetRunningInstances()); got != want {
			t.Errorf("slot %s of an 8-node pool runs %d instances, want %d", s.GetName(), got, want)
		}
	}
	if got := getMaintSubBlock(ctx, t, subs, "sub-block-c1").GetInUseHostCount(); got != 8 {
		t.Errorf("inUseHostCount %d, want 8", got)
	}
	if got := state("sub-block-c1"); got != "RUNNING" {
		t.Errorf("held sub-block: %s, want RUNNING", got)
	}
	if got := state("sub-block-c2"); got != "AVAILABLE" {
		t.Fatalf("free sub-block: %s, want AVAILABLE", got)
	}

	op, err := subs.ReportFaulty(ctx, faultyRequest("MULTIPLE_FAULTY_HOSTS", "IMMEDIATE", "PERFORMANCE"))
	if err != nil {
		t.Fatal(err)
	}
	if err := op.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	delay := repair.next(t)
	if got := state("sub-block-c2"); got != "DEGRADED" {
		t.Errorf("faulty sub-block: %s, want DEGRADED", got)
	}
	for _, s := range list("sub-block-c2") {
		if s.GetState() != "UNAVAILABLE" {
			t.Errorf("slot %s of a faulty sub-block: %s, want UNAVAILABLE", s.GetName(), s.GetState())
		}
	}
	delay.end()
	if got := state("sub-block-c2"); got != "AVAILABLE" {
		t.Errorf("repaired sub-block: %s, want AVAILABLE", got)
	}
	got, err := slots.Get(ctx, &computepb.GetReservationSlotRequest{Project: inv.Project, Zone: inv.Zone, ParentName: maintParent + "/reservationSubBlocks/sub-block-c2", ReservationSlot: "slot-07"})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetResource().GetState() != "ACTIVE" {
		t.Errorf("repaired slot: %s, want ACTIVE", got.GetResource().GetState())
	}
	hop, err := slots.GetHealth(ctx, &computepb.GetHealthReservationSlotRequest{Project: inv.Project, Zone: inv.Zone, ParentName: maintParent + "/reservationSubBlocks/sub-block-c2", ReservationSlot: "slot-07"})
	if err != nil {
		t.Fatal(err)
	}
	if err := hop.Wait(ctx); err != nil || hop.Proto().GetOperationType() != "getHealth" {
		t.Errorf("getHealth: %v %v", err, hop.Proto())
	}
	repair.none(t)
}

// The discovery client (google.golang.org/api/compute/v1, as the Terraform
// google provider and gcloud's generated clients call) lists the slots.
func TestComputeReservationSlotsDiscoveryClient(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newComputeService(t, e)
	l, err := svc.ReservationSlots.List(inv.Project, inv.Zone, slotsParent).Context(testContext(t)).Do()
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != cloud.HostsPerSubBlock || l.Items[15].Name != "slot-15" {
		t.Errorf("discovery client list: %d slots", len(l.Items))
	}
}
