package sandbox

import (
	"net/http"
	"strings"
	"testing"
)

// Every request the emulated APIs refuse is logged with its method, path,
// status and message.
func TestRefusedRequestsAreLogged(t *testing.T) {
	needSandbox(t)
	logged := captureLog(t)
	path := "v1/" + clusterName() + "/nodePools/no-such-pool"
	if status, _ := googleGET(t, path); status != http.StatusNotFound {
		t.Fatalf("GET %s: %d, want 404", path, status)
	}
	status, _ := googlePOST(t, "compute/v1/projects/"+testSandbox.Inventory.Project+"/regions/"+testSandbox.Inventory.Region+"/resourcePolicies", `{"name": "x", "bogus": 1}`)
	if status != http.StatusBadRequest {
		t.Fatalf("policy insert with an unknown field: %d, want 400", status)
	}
	_, _ = googleGET(t, "v1/"+clusterName())
	out := logged()
	for _, want := range []string{
		"container GET /" + path + ": refused 404: The resource '" + clusterName() + "/nodePools/no-such-pool' was not found",
		"compute POST /compute/v1/projects/" + testSandbox.Inventory.Project + "/regions/" + testSandbox.Inventory.Region + `/resourcePolicies: refused 400: Invalid JSON payload received. Unknown name "bogus"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "GET /v1/"+clusterName()+":") {
		t.Errorf("a served request was logged as refused:\n%s", out)
	}
}
