package sandbox

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// googlePOST sends a POST with a raw JSON body (as gcloud and other
// clients shape them: nulls, fields the sandbox does not emulate) to path,
// relative to the emulated APIs, and returns the status and decoded body.
func googlePOST(t *testing.T, path, body string) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, testSandbox.GoogleURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testSandbox.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("POST %s: %s: not JSON: %v\n%s", path, resp.Status, err, b)
	}
	return resp.StatusCode, out
}

// captureLog sends the sandbox's log lines to a buffer for the test; read
// it with the returned function.
func captureLog(t *testing.T) func() string {
	t.Helper()
	var (
		mu  sync.Mutex
		buf bytes.Buffer
	)
	prev := googleapi.SetLogger(log.New(lockedWriter{&mu, &buf}, "", 0))
	t.Cleanup(func() { googleapi.SetLogger(prev) })
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return buf.String()
	}
}

// lockedWriter writes to w under mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// wantUnknownField checks GCP's answer to a field no API version defines.
func wantUnknownField(t *testing.T, status int, body map[string]any, message, field string) {
	t.Helper()
	e, _ := body["error"].(map[string]any)
	if status != http.StatusBadRequest || e["status"] != "INVALID_ARGUMENT" || e["message"] != message {
		t.Fatalf("answer %d %v; want 400 INVALID_ARGUMENT %q", status, body, message)
	}
	details, _ := e["details"].([]any)
	if len(details) != 1 {
		t.Fatalf("details %v; want one google.rpc.BadRequest", e["details"])
	}
	d, _ := details[0].(map[string]any)
	fv, _ := d["fieldViolations"].([]any)
	if d["@type"] != "type.googleapis.com/google.rpc.BadRequest" || len(fv) != 1 {
		t.Fatalf("detail %v; want a google.rpc.BadRequest with one violation", d)
	}
	if v, _ := fv[0].(map[string]any); v["field"] != field || v["description"] != message {
		t.Errorf("violation %v; want field %q, description %q", v, field, message)
	}
}

// waitComputeOp waits for a Compute operation named in an insert's answer.
func waitComputeOp(t *testing.T, op map[string]any) {
	t.Helper()
	inv := testSandbox.Inventory
	name, _ := op["name"].(string)
	// No pause between the calls: the wait call itself waits.
	testsupport.Poll(t, 20*time.Second, 0, fmt.Sprintf("operation %s to be done", name), func() (bool, string, error) {
		status, got := googlePOST(t, "compute/v1/projects/"+inv.Project+"/regions/"+inv.Region+"/operations/"+name+"/wait", "")
		if status != http.StatusOK {
			t.Fatalf("wait %s: %d %v", name, status, got)
		}
		if got["status"] == "DONE" && got["error"] != nil {
			t.Fatalf("operation %s failed: %v", name, got["error"])
		}
		return got["status"] == "DONE", fmt.Sprintf("operation %s is not done: its status is %v", name, got["status"]), nil
	})
}

// A resource policy insert as gcloud and the Terraform google provider
// send it, with nulls for what is unset, is served; a field of another
// policy kind is known (refused only because the sandbox emulates workload
// policies), an undefined one refused as GCP refuses it.
func TestComputePolicyInsertAsClientsSendIt(t *testing.T) {
	needSandbox(t)
	inv := testSandbox.Inventory
	path := "compute/v1/projects/" + inv.Project + "/regions/" + inv.Region + "/resourcePolicies"
	name := uniqueName("wp-nulls")
	cleanupPolicy(t, name)
	status, op := googlePOST(t, path, `{"name": "`+name+`", "description": null, "region": null,
		"groupPlacementPolicy": null, "snapshotSchedulePolicy": null, "instanceSchedulePolicy": null, "diskConsistencyGroupPolicy": null,
		"workloadPolicy": {"type": "HIGH_THROUGHPUT", "acceleratorTopology": "4x4x4", "acceleratorTopologyMode": "PROVISION_ONLY", "maxTopologyDistance": null}}`)
	if status != http.StatusOK {
		t.Fatalf("insert with nulls: %d %v", status, op)
	}
	waitComputeOp(t, op)
	status, got := googleGET(t, path+"/"+name)
	if wp, _ := got["workloadPolicy"].(map[string]any); status != http.StatusOK || wp["acceleratorTopologyMode"] != "PROVISION_ONLY" || got["description"] != nil {
		t.Fatalf("get: %d %v", status, got)
	}

	status, body := googlePOST(t, path, `{"name": "`+uniqueName("wp-gpp")+`",
		"groupPlacementPolicy": {"collocation": "COLLOCATED", "vmCount": null}}`)
	if e, _ := body["error"].(map[string]any); status != http.StatusBadRequest ||
		!strings.Contains(e["message"].(string), "'resource.groupPlacementPolicy': the sandbox emulates workload policies only") {
		t.Errorf("group placement policy: %d %v; want the sandbox's 400 on another policy kind", status, body)
	}
	// No version of the Compute API defines a group placement policy's
	// acceleratorTopology (v1 has gpuTopology, beta tpuTopology): GCP
	// refuses it, and so does the sandbox.
	status, body = googlePOST(t, path, `{"name": "`+uniqueName("wp-gpp")+`",
		"groupPlacementPolicy": {"acceleratorTopology": "4x4x4", "collocation": null}}`)
	wantUnknownField(t, status, body, `Invalid JSON payload received. Unknown name "acceleratorTopology" at 'resource_policy.group_placement_policy': Cannot find field.`,
		"resource_policy.group_placement_policy")

	status, body = googlePOST(t, path, `{"name": "`+uniqueName("wp-x")+`", "x": null,
		"workloadPolicy": {"type": "HIGH_AVAILABILITY"}}`)
	wantUnknownField(t, status, body, `Invalid JSON payload received. Unknown name "x" at 'resource_policy': Cannot find field.`, "resource_policy")
}

// A node pool create that sets fields the sandbox does not emulate (as the
// Terraform google provider and gcloud always do) succeeds; the fields are
// logged, echoed back, and change nothing. An update of such fields only
// is an operation that changes nothing.
func TestGKENodePoolCreateWithUnemulatedFields(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	logged := captureLog(t)
	const name = "np-c1-fields"
	body := `{"nodePool": {"name": "` + name + `", "initialNodeCount": 2, "locations": ["` + testSandbox.Inventory.Zone + `"],
		"autoscaling": null, "maxPodsConstraint": null, "version": null,
		"config": {"machineType": "` + MachineType + `", "diskSizeGb": 100, "oauthScopes": ["https://www.googleapis.com/auth/cloud-platform"],
			"shieldedInstanceConfig": {"enableSecureBoot": false, "enableIntegrityMonitoring": true}, "labels": null, "taints": null,
			"reservationAffinity": {"consumeReservationType": "SPECIFIC_RESERVATION", "key": "compute.googleapis.com/reservation-name",
				"values": ["` + reservationPath("tpu7x-reservation-2", "block-c", "sub-block-c1") + `"]}},
		"management": {"autoRepair": true, "autoUpgrade": false},
		"upgradeSettings": {"maxSurge": 0, "maxUnavailable": 1, "strategy": "SURGE"},
		"networkConfig": {"createPodRange": false, "enablePrivateNodes": null},
		"queuedProvisioning": {"enabled": false},
		"placementPolicy": {"policyName": "` + gkePolicy + `", "type": null, "tpuTopology": null}}}`
	status, op := googlePOST(t, "v1/"+clusterName()+"/nodePools", body)
	if status != http.StatusOK {
		t.Fatalf("create: %d %v", status, op)
	}
	t.Cleanup(func() { deletePool(t, svc, name) })
	if err := waitGKEOperation(testContext(t), svc, &container.Operation{Name: op["name"].(string)}); err != nil {
		t.Fatal(err)
	}
	l := logged()
	for _, f := range []string{"nodePool.config.shieldedInstanceConfig", "nodePool.config.diskSizeGb", "nodePool.management",
		"nodePool.upgradeSettings", "nodePool.networkConfig", "nodePool.queuedProvisioning"} {
		if !strings.Contains(l, f) {
			t.Errorf("the log does not name %s:\n%s", f, l)
		}
	}
	if !strings.Contains(l, "container nodePools.create") {
		t.Errorf("the log does not name the request:\n%s", l)
	}
	got, err := svc.Projects.Locations.Clusters.NodePools.Get(clusterName() + "/nodePools/" + name).Do()
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "RUNNING" || got.Management == nil || !got.Management.AutoRepair || got.UpgradeSettings == nil || got.UpgradeSettings.MaxUnavailable != 1 ||
		got.Config.ShieldedInstanceConfig == nil || !got.Config.ShieldedInstanceConfig.EnableIntegrityMonitoring {
		t.Errorf("the pool does not echo the fields it was created with: %+v", got)
	}
	if n := len(poolNodes(t, name)); n != 2 {
		t.Errorf("%d nodes; want 2", n)
	}

	upd, err := svc.Projects.Locations.Clusters.NodePools.Update(clusterName()+"/nodePools/"+name,
		&container.UpdateNodePoolRequest{NodeVersion: "-", ImageType: "COS_CONTAINERD"}).Do()
	if err != nil {
		t.Fatalf("an update of fields the sandbox ignores: %v", err)
	}
	if err := waitGKEOperation(testContext(t), svc, upd); err != nil {
		t.Fatal(err)
	}
	if l := logged(); !strings.Contains(l, "container nodePools.update") || !strings.Contains(l, "imageType") {
		t.Errorf("the update's ignored fields are not logged:\n%s", l)
	}

	status, resp := googlePOST(t, "v1/"+clusterName()+"/nodePools",
		`{"nodePool": {"name": "np-unknown", "config": {"machineType": "`+MachineType+`", "bogus": true}}}`)
	wantUnknownField(t, status, resp, `Invalid JSON payload received. Unknown name "bogus" at 'node_pool.config': Cannot find field.`, "node_pool.config")
}
