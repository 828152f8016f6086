package gkeapi

import (
	"bytes"
	"encoding/json"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// acceptRecorded runs googleapi.AcceptBody on body and returns what the
// handler would decode (nil when refused) and the recorded answer.
func acceptRecorded(t *testing.T, spec googleapi.BodySpec, body string) ([]byte, *httptest.ResponseRecorder) {
	t.Helper()
	rw := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodPost, "/v1/projects/p/locations/l/clusters/c/nodePools", strings.NewReader(body))
	out, ok := googleapi.AcceptBody(rw, r, spec)
	if !ok {
		return nil, rw
	}
	return out, rw
}

// wantRefused checks GCP's answer to a field no API version defines: a 400
// INVALID_ARGUMENT with message, and one field violation at field.
func wantRefused(t *testing.T, rw *httptest.ResponseRecorder, message, field string) {
	t.Helper()
	var body struct {
		Error struct {
			Status, Message string
			Details         []struct {
				FieldViolations []struct{ Field, Description string }
			}
		}
	}
	if err := json.Unmarshal(rw.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	e := body.Error
	if rw.Code != http.StatusBadRequest || e.Status != "INVALID_ARGUMENT" || e.Message != message ||
		len(e.Details) != 1 || len(e.Details[0].FieldViolations) != 1 || e.Details[0].FieldViolations[0].Field != field {
		t.Errorf("answer %d %s; want 400 INVALID_ARGUMENT %q at %q", rw.Code, rw.Body, message, field)
	}
}

// Nulls are absent at any depth, proto names are rewritten to JSON names,
// and the fields the sandbox ignores are logged.
func TestNodePoolBodyNullsAndNames(t *testing.T) {
	var buf bytes.Buffer
	prev := googleapi.SetLogger(log.New(&buf, "", 0))
	t.Cleanup(func() { googleapi.SetLogger(prev) })
	logged := buf.String
	spec := nodePoolCreate[false]
	out, rw := acceptRecorded(t, spec, `{"nodePool": {"name": "np", "autoscaling": null, "management": {"autoRepair": true},
		"config": {"machineType": "tpu7x-standard-4t", "shieldedInstanceConfig": {"enableSecureBoot": true}, "labels": {"a": "b"}},
		"placementPolicy": {"policyName": "wp", "tpuTopology": "4x4x4"}}, "parent": null}`)
	if out == nil {
		t.Fatalf("refused: %s", rw.Body)
	}
	l := logged()
	for _, f := range []string{"nodePool.management", "nodePool.config.shieldedInstanceConfig", "nodePool.placementPolicy.tpuTopology"} {
		if !strings.Contains(l, f) {
			t.Errorf("log %q does not name %s", l, f)
		}
	}
	// v1beta1 defines more: hostMaintenancePolicy is ignored there, refused
	// on v1 (TestNodePoolBodyUnknownFields).
	if beta, brw := acceptRecorded(t, nodePoolCreate[true], `{"nodePool": {"config": {"hostMaintenancePolicy": {"maintenanceInterval": "PERIODIC"}}}}`); beta == nil {
		t.Errorf("v1beta1 refused its own field: %s", brw.Body)
	}
	for _, f := range []string{"autoscaling", "machineType", "labels", "policyName", "parent"} {
		if strings.Contains(l, f) {
			t.Errorf("log %q names %s, which is null or emulated", l, f)
		}
	}
	if !strings.Contains(string(out), `"management":{"autoRepair":true}`) {
		t.Errorf("body %s lost the ignored fields; the pool echoes them", out)
	}
}

// A field no API version defines is refused as Google's front end refuses
// it, at its snake_case path.
func TestNodePoolBodyUnknownFields(t *testing.T) {
	cases := []struct {
		spec           googleapi.BodySpec
		body           string
		message, field string
	}{
		{nodePoolCreate[false], `{"nodePool": {"config": {"taints": [{"key": "k", "colour": "red"}]}}}`,
			`Invalid JSON payload received. Unknown name "colour" at 'node_pool.config.taints[0]': Cannot find field.`, "node_pool.config.taints[0]"},
		{nodePoolCreate[false], `{"nodePool": {"config": {"hostMaintenancePolicy": {}}}}`,
			`Invalid JSON payload received. Unknown name "hostMaintenancePolicy" at 'node_pool.config': Cannot find field.`, "node_pool.config"},
		{nodePoolCreate[true], `{"nodePol": {}}`,
			`Invalid JSON payload received. Unknown name "nodePol": Cannot find field.`, ""},
	}
	for _, c := range cases {
		out, rw := acceptRecorded(t, c.spec, c.body)
		if out != nil {
			t.Errorf("%s: accepted %s", c.body, out)
			continue
		}
		wantRefused(t, rw, c.message, c.field)
	}
}
