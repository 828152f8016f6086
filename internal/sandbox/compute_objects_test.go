package sandbox

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	computebeta "google.golang.org/api/compute/v0.beta"
	computeapi "google.golang.org/api/compute/v1"
)

// Every reservation, block, sub-block and workload policy the emulated
// Compute API returns carries the fields Compute Engine's do, and no field
// that compute/v1 or compute/beta does not define.
func TestComputeWholeObjects(t *testing.T) {
	needSandbox(t)
	newGKEService(t) // makes the workload policy gkePolicy
	inv := testSandbox.Inventory
	zone := "compute/v1/projects/" + inv.Project + "/zones/" + inv.Zone
	res := zone + "/reservations/tpu7x-reservation"
	block := res + "/reservationBlocks/block-a"
	sub := block + "/reservationSubBlocks/sub-block-a1"
	policy := "compute/v1/projects/" + inv.Project + "/regions/" + inv.Region + "/resourcePolicies/" + gkePolicy

	got := map[string]map[string]any{}
	for what, c := range map[string]struct {
		path     string
		v1, beta reflect.Type
	}{
		"reservation": {res, reflect.TypeFor[computeapi.Reservation](), reflect.TypeFor[computebeta.Reservation]()},
		"block":       {block, reflect.TypeFor[computeapi.ReservationBlocksGetResponse](), reflect.TypeFor[computebeta.ReservationBlocksGetResponse]()},
		"sub-block":   {sub, reflect.TypeFor[computeapi.ReservationSubBlocksGetResponse](), reflect.TypeFor[computebeta.ReservationSubBlocksGetResponse]()},
		"policy":      {policy, reflect.TypeFor[computeapi.ResourcePolicy](), reflect.TypeFor[computebeta.ResourcePolicy]()},
	} {
		status, obj := googleGET(t, c.path)
		if status != 200 {
			t.Fatalf("GET %s: %d %v", c.path, status, obj)
		}
		wantOnlyAPIFields(t, what, obj, c.v1)
		wantOnlyAPIFields(t, what+" (beta)", obj, c.beta)
		got[what] = obj
	}

	r := decodeInto[computeapi.Reservation](t, got["reservation"])
	if m := missing(map[string]bool{
		"kind": r.Kind == "compute#reservation", "id": r.Id != 0, "creationTimestamp": r.CreationTimestamp != "",
		"selfLink": strings.HasSuffix(r.SelfLink, "/reservations/"+r.Name), "zone": strings.HasSuffix(r.Zone, "/zones/"+inv.Zone),
		"status": r.Status == "READY", "specificReservation": r.SpecificReservation != nil && r.SpecificReservation.Count > 0 &&
			r.SpecificReservation.AssuredCount > 0 && r.SpecificReservation.InstanceProperties != nil,
		"shareSettings": r.ShareSettings != nil && r.ShareSettings.ShareType == "LOCAL", "deploymentType": r.DeploymentType != "",
	}); len(m) > 0 {
		t.Errorf("reservation lacks %v", m)
	}
	b := decodeInto[computeapi.ReservationBlocksGetResponse](t, got["block"]).Resource
	if m := missing(map[string]bool{
		"resource": b != nil,
		"kind":     b != nil && b.Kind == "compute#reservationBlock", "id": b != nil && b.Id != 0,
		"creationTimestamp": b != nil && b.CreationTimestamp != "",
		"selfLinkWithId":    b != nil && strings.HasSuffix(b.SelfLinkWithId, "/reservationBlocks/"+idString(b.Id)),
		"physicalTopology":  b != nil && b.PhysicalTopology != nil && b.PhysicalTopology.Block != "",
		"healthInfo":        b != nil && b.HealthInfo != nil && b.HealthInfo.HealthStatus != "",
		"counts":            b != nil && b.Count > 0 && b.ReservationSubBlockCount > 0,
	}); len(m) > 0 {
		t.Errorf("reservation block lacks %v", m)
	}
	s := decodeInto[computeapi.ReservationSubBlocksGetResponse](t, got["sub-block"]).Resource
	if m := missing(map[string]bool{
		"resource": s != nil,
		"kind":     s != nil && s.Kind == "compute#reservationSubBlock", "id": s != nil && s.Id != 0,
		"creationTimestamp": s != nil && s.CreationTimestamp != "",
		"selfLinkWithId":    s != nil && strings.HasSuffix(s.SelfLinkWithId, "/reservationSubBlocks/"+idString(s.Id)),
		"physicalTopology":  s != nil && s.PhysicalTopology != nil && s.PhysicalTopology.SubBlock != "",
		"healthInfo":        s != nil && s.HealthInfo != nil && s.HealthInfo.HealthStatus != "",
		"count":             s != nil && s.Count == HostsPerSubBlock,
	}); len(m) > 0 {
		t.Errorf("reservation sub-block lacks %v", m)
	}
	name := uniqueName("whole")
	cleanupPolicy(t, name)
	status, op := googlePOST(t, "compute/v1/projects/"+inv.Project+"/regions/"+inv.Region+"/resourcePolicies",
		`{"name": "`+name+`", "workloadPolicy": {"type": "HIGH_THROUGHPUT", "acceleratorTopology": "4x4x4", "acceleratorTopologyMode": "PROVISION_ONLY"}}`)
	if status != 200 {
		t.Fatalf("policy insert: %d %v", status, op)
	}
	wantOnlyAPIFields(t, "operation", op, reflect.TypeFor[computeapi.Operation]())
	wantOnlyAPIFields(t, "operation (beta)", op, reflect.TypeFor[computebeta.Operation]())
	o := decodeInto[computeapi.Operation](t, op)
	if o.Kind != "compute#operation" || o.Id == 0 || o.Name == "" || o.OperationType != "insert" || o.Status == "" || o.User == "" ||
		o.InsertTime == "" || o.StartTime == "" || !strings.HasSuffix(o.TargetLink, "/resourcePolicies/"+name) || !strings.Contains(o.SelfLink, "/operations/") || o.Region == "" {
		t.Errorf("operation lacks fields: %+v", o)
	}
	waitComputeOp(t, op)

	p := decodeInto[computeapi.ResourcePolicy](t, got["policy"])
	if p.Kind != "compute#resourcePolicy" || p.Id == 0 || p.CreationTimestamp == "" || p.SelfLink == "" || p.Region == "" || p.Status == "" || p.WorkloadPolicy == nil {
		t.Errorf("workload policy lacks fields: %+v", p)
	}
}

func idString(id uint64) string { return strconv.FormatUint(id, 10) }
