package computeapi_test

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	compute "cloud.google.com/go/compute/apiv1"
	computebeta "google.golang.org/api/compute/v0.beta"
	computev1 "google.golang.org/api/compute/v1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// wantOnlyAPIFields fails the test for any field of obj (at any depth) that
// the Go client's type typ does not define: what the sandbox returns is
// what the API reference defines, nothing of its own.
func wantOnlyAPIFields(t *testing.T, what string, obj map[string]any, typ reflect.Type) {
	t.Helper()
	for _, u := range googleapi.UnknownFields(obj, typ) {
		t.Errorf("%s: a field %s does not define: %s", what, typ, u.Description)
	}
}

// decodeInto re-encodes a decoded JSON object into a Go client type, as the
// client decodes the answer.
func decodeInto[T any](t *testing.T, obj map[string]any) *T {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	out := new(T)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decoding into %T: %v", out, err)
	}
	return out
}

// missing lists the names of the checks that fail.
func missing(checks map[string]bool) []string {
	var out []string
	for name, ok := range checks {
		if !ok {
			out = append(out, name)
		}
	}
	return out
}

// Every reservation, block, sub-block and workload policy the emulated
// Compute API returns carries the fields Compute Engine's do, and no field
// that compute/v1 or compute/beta does not define.
func TestComputeWholeObjects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const gkePolicy = "gke-tests-policy"
	if err := insertPolicy(testContext(t), newComputeClient(t, e, compute.NewResourcePoliciesRESTClient), dynamicSlicingPolicy(gkePolicy)); err != nil {
		t.Fatal(err)
	}
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
		"reservation": {res, reflect.TypeFor[computev1.Reservation](), reflect.TypeFor[computebeta.Reservation]()},
		"block":       {block, reflect.TypeFor[computev1.ReservationBlocksGetResponse](), reflect.TypeFor[computebeta.ReservationBlocksGetResponse]()},
		"sub-block":   {sub, reflect.TypeFor[computev1.ReservationSubBlocksGetResponse](), reflect.TypeFor[computebeta.ReservationSubBlocksGetResponse]()},
		"policy":      {policy, reflect.TypeFor[computev1.ResourcePolicy](), reflect.TypeFor[computebeta.ResourcePolicy]()},
	} {
		status, obj := e.get(t, c.path)
		if status != 200 {
			t.Fatalf("GET %s: %d %v", c.path, status, obj)
		}
		wantOnlyAPIFields(t, what, obj, c.v1)
		wantOnlyAPIFields(t, what+" (beta)", obj, c.beta)
		got[what] = obj
	}

	r := decodeInto[computev1.Reservation](t, got["reservation"])
	if m := missing(map[string]bool{
		"kind": r.Kind == "compute#reservation", "id": r.Id != 0, "creationTimestamp": r.CreationTimestamp != "",
		"selfLink": strings.HasSuffix(r.SelfLink, "/reservations/"+r.Name), "zone": strings.HasSuffix(r.Zone, "/zones/"+inv.Zone),
		"status": r.Status == "READY", "specificReservation": r.SpecificReservation != nil && r.SpecificReservation.Count > 0 &&
			r.SpecificReservation.AssuredCount > 0 && r.SpecificReservation.InstanceProperties != nil,
		"shareSettings": r.ShareSettings != nil && r.ShareSettings.ShareType == "LOCAL", "deploymentType": r.DeploymentType != "",
	}); len(m) > 0 {
		t.Errorf("reservation lacks %v", m)
	}
	b := decodeInto[computev1.ReservationBlocksGetResponse](t, got["block"]).Resource
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
	s := decodeInto[computev1.ReservationSubBlocksGetResponse](t, got["sub-block"]).Resource
	if m := missing(map[string]bool{
		"resource": s != nil,
		"kind":     s != nil && s.Kind == "compute#reservationSubBlock", "id": s != nil && s.Id != 0,
		"creationTimestamp": s != nil && s.CreationTimestamp != "",
		"selfLinkWithId":    s != nil && strings.HasSuffix(s.SelfLinkWithId, "/reservationSubBlocks/"+idString(s.Id)),
		"physicalTopology":  s != nil && s.PhysicalTopology != nil && s.PhysicalTopology.SubBlock != "",
		"healthInfo":        s != nil && s.HealthInfo != nil && s.HealthInfo.HealthStatus != "",
		"count":             s != nil && s.Count == cloud.HostsPerSubBlock,
	}); len(m) > 0 {
		t.Errorf("reservation sub-block lacks %v", m)
	}
	name := "whole"
	status, op := e.post(t, "compute/v1/projects/"+inv.Project+"/regions/"+inv.Region+"/resourcePolicies",
		`{"name": "`+name+`", "workloadPolicy": {"type": "HIGH_THROUGHPUT", "acceleratorTopology": "4x4x4", "acceleratorTopologyMode": "PROVISION_ONLY"}}`)
	if status != 200 {
		t.Fatalf("policy insert: %d %v", status, op)
	}
	wantOnlyAPIFields(t, "operation", op, reflect.TypeFor[computev1.Operation]())
	wantOnlyAPIFields(t, "operation (beta)", op, reflect.TypeFor[computebeta.Operation]())
	o := decodeInto[computev1.Operation](t, op)
	if o.Kind != "compute#operation" || o.Id == 0 || o.Name == "" || o.OperationType != "insert" || o.Status == "" || o.User == "" ||
		o.InsertTime == "" || o.StartTime == "" || !strings.HasSuffix(o.TargetLink, "/resourcePolicies/"+name) || !strings.Contains(o.SelfLink, "/operations/") || o.Region == "" {
		t.Errorf("operation lacks fields: %+v", o)
	}
	e.waitComputeOp(t, op)

	p := decodeInto[computev1.ResourcePolicy](t, got["policy"])
	if p.Kind != "compute#resourcePolicy" || p.Id == 0 || p.CreationTimestamp == "" || p.SelfLink == "" || p.Region == "" || p.Status == "" || p.WorkloadPolicy == nil {
		t.Errorf("workload policy lacks fields: %+v", p)
	}
}

func idString(id uint64) string { return strconv.FormatUint(id, 10) }
