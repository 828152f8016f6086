package computeapi

import (
	"bytes"
	"log"
	"net/http/httptest"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi/googleapitest"
)

// acceptRecorded is googleapitest.AcceptRecorded on this API's path.
func acceptRecorded(t *testing.T, spec googleapi.BodySpec, body string) ([]byte, *httptest.ResponseRecorder) {
	t.Helper()
	return googleapitest.AcceptRecorded(t, spec, "/compute/v1/projects/p/regions/r/resourcePolicies", body)
}

// Nulls are absent at any depth, proto names are rewritten to JSON names,
// and a workload policy logs nothing: the sandbox emulates all of it.
func TestPolicyInsertBodyNullsAndNames(t *testing.T) {
	var logged bytes.Buffer
	prev := googleapi.SetLogger(log.New(&logged, "", 0))
	t.Cleanup(func() { googleapi.SetLogger(prev) })
	out, rw := acceptRecorded(t, resourcePolicyInsert, `{"name": "p", "description": null, "region": null,
		"snapshotSchedulePolicy": null, "workload_policy": {"type": "HIGH_THROUGHPUT", "accelerator_topology": "4x4x4", "maxTopologyDistance": null}}`)
	if out == nil {
		t.Fatalf("refused: %s", rw.Body)
	}
	want := `{"name":"p","workloadPolicy":{"acceleratorTopology":"4x4x4","type":"HIGH_THROUGHPUT"}}`
	if string(out) != want {
		t.Errorf("body %s; want %s", out, want)
	}
	if l := logged.String(); l != "" {
		t.Errorf("a workload policy logged %q; the sandbox emulates all of it", l)
	}
}

// A field no API version defines is refused as Google's front end refuses
// it, at its snake_case path.
func TestPolicyInsertBodyUnknownFields(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ body, message, field string }{
		{`{"name": "p", "x": 1}`,
			`Invalid JSON payload received. Unknown name "x" at 'resource_policy': Cannot find field.`, "resource_policy"},
		{`{"name": "p", "workloadPolicy": {"type": "HIGH_THROUGHPUT", "bogus": null}}`,
			`Invalid JSON payload received. Unknown name "bogus" at 'resource_policy.workload_policy': Cannot find field.`, "resource_policy.workload_policy"},
	} {
		out, rw := acceptRecorded(t, resourcePolicyInsert, c.body)
		if out != nil {
			t.Errorf("%s: accepted %s", c.body, out)
			continue
		}
		googleapitest.WantRefused(t, c.body, rw, c.message, c.field)
	}
}
