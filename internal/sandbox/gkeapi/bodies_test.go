package gkeapi

import (
	"bytes"
	"log"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi/googleapitest"
)

// acceptRecorded is googleapitest.AcceptRecorded on this API's path.
func acceptRecorded(t *testing.T, spec googleapi.BodySpec, body string) ([]byte, *httptest.ResponseRecorder) {
	t.Helper()
	return googleapitest.AcceptRecorded(t, spec, "/v1/projects/p/locations/l/clusters/c/nodePools", body)
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
	t.Parallel()
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
		googleapitest.WantRefused(t, c.body, rw, c.message, c.field)
	}
}
