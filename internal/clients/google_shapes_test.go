package clients

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const (
	computeBase = "/compute/v1/projects/p"
	gkeBase     = "/v1/projects/p/locations/us-central1/clusters/c"
)

// Each request the provider sends names the message its answer decodes
// into; the methods it does not send, or that answer another message, name
// none (their answer is checked to be a JSON object only).
func TestGoogleAnswerShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ api, method, path, want string }{
		{"Compute", "GET", computeBase + "/regions/r/resourcePolicies/wp", "a Compute resource policy"},
		{"Compute", "GET", computeBase + "/regions/r/resourcePolicies", "a list of Compute resource policies"},
		{"Compute", "POST", computeBase + "/regions/r/resourcePolicies", "a Compute operation"},
		{"Compute", "DELETE", computeBase + "/regions/r/resourcePolicies/wp", "a Compute operation"},
		{"Compute", "GET", computeBase + "/regions/r/operations/op-1", "a Compute operation"},
		{"Compute", "POST", computeBase + "/regions/r/operations/op-1/wait", "a Compute operation"},
		{"Compute", "GET", computeBase + "/zones/z/reservations/res", "a Compute reservation"},
		{"Compute", "GET", computeBase + "/zones/z/reservations/res/reservationBlocks/b", "a Compute reservation block"},
		{"Compute", "GET", computeBase + "/zones/z/reservations/res/reservationBlocks", "a list of Compute reservation blocks"},
		{"Compute", "GET", computeBase + "/zones/z/reservations/res/reservationBlocks/b/reservationSubBlocks/sb", "a Compute reservation sub-block"},
		{"Compute", "GET", computeBase + "/zones/z/reservations/res/reservationBlocks/b/reservationSubBlocks", "a list of Compute reservation sub-blocks"},
		{"Compute", "POST", computeBase + "/zones/z/reservations/res/reservationBlocks/b/reservationSubBlocks/sb/reportFaulty", "a Compute operation"},
		{"Compute", "POST", computeBase + "/zones/z/reservations/res/reservationBlocks/b/performMaintenance", "a Compute operation"},
		{"Compute", "GET", computeBase + "/zones/z/reservations/res/reservationBlocks/b/reservationSubBlocks/sb/reservationSlots", "a list of Compute reservation slots"},
		{"Compute", "POST", computeBase + "/zones/z/instances/vm/reportHostAsFaulty", "a Compute operation"},
		// A policy named as a collection is still a policy.
		{"Compute", "GET", computeBase + "/regions/r/resourcePolicies/operations", "a Compute resource policy"},
		// An endpoint with a path of its own before the API's.
		{"Compute", "GET", "/gateway/compute/v1/projects/p/regions/r/resourcePolicies/wp", "a Compute resource policy"},
		{"Compute", "GET", computeBase + "/aggregated/resourcePolicies", ""},
		{"Compute", "GET", computeBase + "/regions/r/resourcePolicies/wp/getIamPolicy", ""},
		{"Compute", "POST", computeBase + "/regions/r/resourcePolicies/wp/setIamPolicy", ""},
		{"Compute", "POST", computeBase + "/regions/r/resourcePolicies/wp/testIamPermissions", ""},
		{"Compute", "GET", computeBase + "/regions/r/subnetworks/s", ""},
		{"Compute", "GET", "/compute/v1/projects", ""},
		{"GKE", "GET", gkeBase, "a GKE cluster"},
		{"GKE", "GET", gkeBase + "/nodePools/np", "a GKE node pool"},
		{"GKE", "GET", gkeBase + "/nodePools", "a list of GKE node pools"},
		{"GKE", "POST", gkeBase + "/nodePools", "a GKE operation"},
		{"GKE", "PUT", gkeBase + "/nodePools/np", "a GKE operation"},
		{"GKE", "DELETE", gkeBase + "/nodePools/np", "a GKE operation"},
		{"GKE", "POST", gkeBase + "/nodePools/np:setManagement", "a GKE operation"},
		{"GKE", "GET", "/v1/projects/p/locations/us-central1/operations/op-1", "a GKE operation"},
		{"GKE", "GET", "/v1/projects/p/zones/us-central1-a/clusters/c/nodePools/np", "a GKE node pool"},
		{"GKE", "POST", "/v1/projects/p/zones/us-central1-a/clusters/c/nodePools/np/setManagement", "a GKE operation"},
		{"GKE", "POST", gkeBase + "/nodePools/np:completeUpgrade", ""},
		{"GKE", "POST", "/v1/projects/p/locations/us-central1/operations/op-1:cancel", ""},
		{"GKE", "GET", gkeBase + "/nodePools/np:fetchNodePoolUpgradeInfo", ""},
		{"GKE", "POST", gkeBase + ":setResourceLabels", ""},
		{"GKE", "GET", "/v1/projects/p/locations/us-central1/serverConfig", ""},
	} {
		got := ""
		if s := googleAnswerShape(tc.api, tc.method, tc.path); s != nil {
			got = s.what
		}
		if got != tc.want {
			t.Errorf("%s %s %s: shape %q, want %q", tc.api, tc.method, tc.path, got, tc.want)
		}
	}
}

// checkBody runs CheckGoogleAnswer over one answer.
func checkBody(method, path string, status int, body string) (string, *MalformedAnswerError) {
	req := httptest.NewRequest(method, "https://googleapis.example"+path, nil)
	resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json; charset=UTF-8"}},
		Body: io.NopCloser(strings.NewReader(body))}
	checked, bad := CheckGoogleAnswer(req, resp)
	if bad != nil {
		return "", bad
	}
	got, _ := io.ReadAll(checked.Body)
	return string(got), nil
}

// A JSON object that the client would make an empty message of (none of
// its keys is a field), or fail to decode (a field of another type), is
// named: what it is, what was expected, what to check.
func TestAnswerOfAnotherShapeIsNamed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, method, path, body, problem, expected string }{
		{"an error object in a 200", "GET", computeBase + "/regions/r/resourcePolicies/wp", `{"error":{"code":404,"message":"not found"}}`,
			`none of its keys ("error") is a field of a Compute resource policy`, "a Compute resource policy"},
		{"a gateway's envelope", "POST", computeBase + "/regions/r/resourcePolicies", `{"code":200,"payload":{"name":"op-1"}}`,
			`none of its keys ("code", "payload") is a field of a Compute operation`, "a Compute operation"},
		{"a name of another type", "POST", computeBase + "/regions/r/resourcePolicies", `{"name":["op-1"],"status":"DONE"}`,
			"it does not decode as a Compute operation (proto:", "a Compute operation"},
		{"a list of another type", "GET", computeBase + "/zones/z/reservations/res/reservationBlocks/b/reservationSubBlocks", `{"items":{"name":"sb"}}`,
			"it does not decode as a list of Compute reservation sub-blocks", "a list of Compute reservation sub-blocks"},
		{"a wrapped node pool", "GET", gkeBase + "/nodePools/np", `{"nodePool":{"name":"np"},"kind":"gateway#answer"}`,
			`none of its keys ("kind", "nodePool") is a field of a GKE node pool`, "a GKE node pool"},
		{"a field of another type", "POST", gkeBase + "/nodePools", `{"name":7,"status":"RUNNING"}`,
			"it does not decode as a GKE operation (json: cannot unmarshal number", "a GKE operation"},
		{"many keys", "GET", gkeBase, `{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7}`,
			`none of its keys ("a", "b", "c", "d", "e", and 2 more) is a field of a GKE cluster`, "a GKE cluster"},
	} {
		_, bad := checkBody(tc.method, tc.path, http.StatusOK, tc.body)
		if bad == nil {
			t.Errorf("%s: %s accepted", tc.name, tc.body)
			continue
		}
		msg := bad.Error()
		for _, want := range []string{"HTTP 200 OK", "the JSON object is of another shape: " + tc.problem, "expected " + tc.expected + " (a JSON object)"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: error %q does not say %q", tc.name, msg, want)
			}
		}
	}
}

// Answers of their shape pass as they came: an empty object (a message
// with every field unset, as an empty list is), new fields beside known
// ones, keys as the clients take them (a proto name for Compute's
// protojson; any case for GKE's encoding/json); and errors, and the
// answers of methods whose message is not named, are not checked.
func TestAnswersOfTheirShapePass(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method, path string
		status             int
		body               string
	}{
		{"an empty list", "GET", computeBase + "/regions/r/resourcePolicies", 200, `{}`},
		{"an empty GKE list", "GET", gkeBase + "/nodePools", 200, "{}\n"},
		{"a field the client does not know yet", "GET", computeBase + "/regions/r/operations/op-1", 200,
			`{"name":"op-1","status":"DONE","fieldOfTomorrow":{"x":[1]}}`},
		{"a proto name", "GET", computeBase + "/regions/r/operations/op-1", 200, `{"target_link":"https://x/p/resourcePolicies/wp"}`},
		{"GKE keys in another case", "GET", "/v1/projects/p/locations/us-central1/operations/op-1", 200, `{"NAME":"op-1","Status":"DONE"}`},
		{"a block wrapped as its client reads it", "GET", computeBase + "/zones/z/reservations/res/reservationBlocks/b", 200,
			`{"resource":{"name":"b","count":16}}`},
		{"an error", "GET", computeBase + "/regions/r/resourcePolicies/wp", 404, `{"error":{"code":404,"message":"not found"}}`},
		{"a method whose message is not named", "POST", gkeBase + "/nodePools/np:completeUpgrade", 200, `{"whatever":1}`},
	} {
		got, bad := checkBody(tc.method, tc.path, tc.status, tc.body)
		if bad != nil || got != tc.body {
			t.Errorf("%s: %s refused (%v) or changed to %q", tc.name, tc.body, bad, got)
		}
	}
}

// The shape of an answer larger than MaxCheckedBody, handed on as it
// comes, is not checked: only its start is (a JSON object).
func TestLargeAnswerShapeIsNotChecked(t *testing.T) {
	t.Parallel()
	large := `{"gateway":"` + strings.Repeat("x", MaxCheckedBody) + `"}`
	got, bad := checkBody("GET", computeBase+"/regions/r/resourcePolicies/wp", http.StatusOK, large)
	if bad != nil || !bytes.Equal([]byte(got), []byte(large)) {
		t.Errorf("an answer beyond MaxCheckedBody refused (%v) or changed", bad)
	}
}
