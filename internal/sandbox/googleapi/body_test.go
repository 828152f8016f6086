package googleapi

import (
	"bytes"
	"log"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	computeapi "google.golang.org/api/compute/v1"
	containerapi "google.golang.org/api/container/v1"
	containerbeta "google.golang.org/api/container/v1beta1"
)

// The field sets come from the google.golang.org/api types, recursively,
// under the JSON (lowerCamel) names.
func TestBodySchemaFromAPITypes(t *testing.T) {
	t.Parallel()
	policy := schemaOf(reflect.TypeFor[computeapi.ResourcePolicy]())
	wp := policy.fields["workloadPolicy"]
	if wp == nil || wp.fields["acceleratorTopologyMode"] == nil || policy.fields["groupPlacementPolicy"].fields["collocation"] == nil {
		t.Fatalf("ResourcePolicy schema lacks workloadPolicy.acceleratorTopologyMode or groupPlacementPolicy.collocation: %v", policy.fields)
	}
	for beta, typ := range map[bool]reflect.Type{
		false: reflect.TypeFor[containerapi.CreateNodePoolRequest](), true: reflect.TypeFor[containerbeta.CreateNodePoolRequest](),
	} {
		pool := schemaOf(typ).fields["nodePool"]
		cfg := pool.fields["config"]
		for _, f := range []string{"shieldedInstanceConfig", "reservationAffinity", "labels", "taints"} {
			if cfg.fields[f] == nil {
				t.Errorf("beta=%v: nodePool.config.%s is missing", beta, f)
			}
		}
		if !cfg.fields["labels"].isMap || cfg.fields["taints"].elem.fields["effect"] == nil {
			t.Errorf("beta=%v: labels is not a map or taints not a list of taints", beta)
		}
		for _, f := range []string{"management", "upgradeSettings", "networkConfig", "queuedProvisioning", "placementPolicy"} {
			if pool.fields[f] == nil {
				t.Errorf("beta=%v: nodePool.%s is missing", beta, f)
			}
		}
		if pool.fields["ForceSendFields"] != nil || pool.fields["forceSendFields"] != nil {
			t.Errorf("beta=%v: the Go client's own fields (json:\"-\") are in the schema", beta)
		}
	}
}

func TestNameCases(t *testing.T) {
	t.Parallel()
	for camel, snake := range map[string]string{"workloadPolicy": "workload_policy", "name": "name", "diskSizeGb": "disk_size_gb"} {
		if got := snakeCase(camel); got != snake {
			t.Errorf("snakeCase(%q) = %q, want %q", camel, got, snake)
		}
		if got := lowerCamel(snake); got != camel {
			t.Errorf("lowerCamel(%q) = %q, want %q", snake, got, camel)
		}
	}
}

// A body is checked against its type: unknown fields are refused at their
// proto path, fields outside Emulated are logged as ignored, nulls dropped.
func TestAcceptBody(t *testing.T) {
	var buf bytes.Buffer
	prev := SetLogger(log.New(&buf, "", 0))
	t.Cleanup(func() { SetLogger(prev) })
	spec := BodySpec{Method: "test policies.insert", Type: reflect.TypeFor[computeapi.ResourcePolicy](), Root: "resource_policy",
		Emulated: []string{"name", "workloadPolicy.type"}}
	post := func(body string) ([]byte, *httptest.ResponseRecorder) {
		rw := httptest.NewRecorder()
		out, _ := AcceptBody(rw, httptest.NewRequest(http.MethodPost, "/p", strings.NewReader(body)), spec)
		return out, rw
	}
	out, rw := post(`{"name": "p", "description": "d", "region": null, "workload_policy": {"type": "HIGH_THROUGHPUT", "acceleratorTopology": "4x4x4"}}`)
	if want := `{"description":"d","name":"p","workloadPolicy":{"acceleratorTopology":"4x4x4","type":"HIGH_THROUGHPUT"}}`; string(out) != want {
		t.Errorf("accepted %s (%d %s); want %s", out, rw.Code, rw.Body, want)
	}
	if want := "test policies.insert /p: ignored fields the sandbox does not emulate: description, workloadPolicy.acceleratorTopology\n"; buf.String() != want {
		t.Errorf("log %q; want %q", buf.String(), want)
	}
	out, rw = post(`{"name": "p", "workloadPolicy": {"bogus": 1}}`)
	want := `Invalid JSON payload received. Unknown name \"bogus\" at 'resource_policy.workload_policy': Cannot find field.`
	violation := `"details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"description":"` + want +
		`","field":"resource_policy.workload_policy"}]}]`
	if out != nil || rw.Code != http.StatusBadRequest || !strings.Contains(rw.Body.String(), violation) {
		t.Errorf("unknown field: %d %s; want 400 with %s", rw.Code, rw.Body, want)
	}
}

// UnknownFields names what an answer holds beyond its type.
func TestUnknownFields(t *testing.T) {
	t.Parallel()
	got := UnknownFields(map[string]any{"name": "c", "legacyAbac": map[string]any{"enabled": false, "extra": 1}, "mine": true},
		reflect.TypeFor[containerapi.Cluster]())
	if len(got) != 2 || got[0].Field != "legacy_abac" || !strings.Contains(got[0].Description, `Unknown name "extra"`) ||
		!strings.Contains(got[1].Description, `Unknown name "mine"`) {
		t.Errorf("unknown fields %+v; want extra (in legacyAbac) and mine", got)
	}
}
