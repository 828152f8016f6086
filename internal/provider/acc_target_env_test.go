package provider

import (
	"slices"
	"strings"
	"testing"
)

// Unit tests of the acceptance target's environment (acc_target_test.go):
// they run without TF_ACC.

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// externalEnv is a complete external target: a sandbox's environment.
func externalEnv(extra map[string]string) func(string) string {
	vars := map[string]string{
		"GKE_ACC_TARGET":                   "external",
		"GOOGLE_PROJECT":                   "sandbox-project",
		"GOOGLE_REGION":                    "us-central1",
		"GOOGLE_CLUSTER":                   "ironwood",
		"GOOGLE_OAUTH_ACCESS_TOKEN":        "secret-token",
		"GOOGLE_COMPUTE_CUSTOM_ENDPOINT":   "http://127.0.0.1:9/",
		"GOOGLE_CONTAINER_CUSTOM_ENDPOINT": "http://127.0.0.1:9/",
	}
	for k, v := range extra {
		if v == "" {
			delete(vars, k)
		} else {
			vars[k] = v
		}
	}
	return envOf(vars)
}

func TestParseAccTarget_sandboxByDefault(t *testing.T) {
	for _, v := range []string{"", "sandbox", " sandbox "} {
		spec, err := parseAccTarget(envOf(map[string]string{"GKE_ACC_TARGET": v}))
		if err != nil || spec.external() || spec.Kind != targetSandbox {
			t.Errorf("GKE_ACC_TARGET=%q: %+v, %v; want the in-process sandbox", v, spec, err)
		}
		if got := spec.translate(`reservation = "tpu7x-reservation"`); got != `reservation = "tpu7x-reservation"` {
			t.Errorf("the in-process sandbox translated names: %s", got)
		}
		if spec.name("acc-policy") != "acc-policy" {
			t.Errorf("the in-process sandbox renamed acc-policy to %s", spec.name("acc-policy"))
		}
	}
}

func TestParseAccTarget_unknownKind(t *testing.T) {
	_, err := parseAccTarget(envOf(map[string]string{"GKE_ACC_TARGET": "gke"}))
	if err == nil || !strings.Contains(err.Error(), `GKE_ACC_TARGET="gke"`) || !strings.Contains(err.Error(), `"external"`) {
		t.Errorf("error %v, want one naming GKE_ACC_TARGET and its values", err)
	}
}

// Every missing variable is named in one error, with what it is for.
func TestParseAccTarget_externalNamesEveryMissingVariable(t *testing.T) {
	_, err := parseAccTarget(envOf(map[string]string{"GKE_ACC_TARGET": "external"}))
	if err == nil {
		t.Fatal("an external target with no environment was accepted")
	}
	for _, want := range []string{"GOOGLE_PROJECT", "GOOGLE_LOCATION", "GOOGLE_CLUSTER", "GOOGLE_OAUTH_ACCESS_TOKEN or GOOGLE_CREDENTIALS", "GOOGLE_APPLICATION_CREDENTIALS"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not name %s: %v", want, err)
		}
	}

	_, err = parseAccTarget(externalEnv(map[string]string{"GOOGLE_CLUSTER": ""}))
	if err == nil || !strings.Contains(err.Error(), "GOOGLE_CLUSTER") || strings.Contains(err.Error(), "GOOGLE_PROJECT (") {
		t.Errorf("only the cluster missing: %v", err)
	}
}

func TestParseAccTarget_externalDefaultsAreTheSandboxInventory(t *testing.T) {
	spec, err := parseAccTarget(externalEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !spec.external() || spec.Provider.Project != "sandbox-project" || spec.Provider.Location != "us-central1" || spec.Provider.Cluster != "ironwood" ||
		spec.Provider.AccessToken != "secret-token" || spec.Provider.ComputeEndpoint == "" || spec.Provider.ContainerEndpoint == "" {
		t.Errorf("provider configuration from the environment: %+v", spec.Provider)
	}
	if spec.Zone != "us-central1-a" || spec.Reservation != "tpu7x-reservation" || spec.Block != "block-a" ||
		!slices.Equal(spec.SubBlocks, []string{"sub-block-a1", "sub-block-a2", "sub-block-a3", "sub-block-a4"}) {
		t.Errorf("defaults %+v, want the sandbox's default inventory", spec)
	}
	if !runIDPattern.MatchString(spec.RunID) || spec.name("acc-policy") != "acc-policy-"+spec.RunID {
		t.Errorf("run ID %q, name %q", spec.RunID, spec.name("acc-policy"))
	}
	if spec.SandboxInventory {
		t.Error("SandboxInventory without GKE_ACC_INVENTORY")
	}
	if strings.Contains(spec.describe(), "secret-token") {
		t.Errorf("describe shows the token: %s", spec.describe())
	}
	// With the sandbox's own names, nothing is translated.
	if len(spec.inventoryNames()) != 0 {
		t.Errorf("names translated against a sandbox: %v", spec.inventoryNames())
	}
}

func TestParseAccTarget_zone(t *testing.T) {
	spec, err := parseAccTarget(externalEnv(map[string]string{"GOOGLE_REGION": "", "GOOGLE_LOCATION": "europe-west4-b"}))
	if err != nil || spec.Zone != "europe-west4-b" {
		t.Errorf("a zonal cluster's zone: %q, %v", spec.Zone, err)
	}
	_, err = parseAccTarget(externalEnv(map[string]string{"GOOGLE_REGION": "europe-west4"}))
	if err == nil || !strings.Contains(err.Error(), "GKE_ACC_ZONE") {
		t.Errorf("a regional cluster outside us-central1 without GKE_ACC_ZONE: %v", err)
	}
	spec, err = parseAccTarget(externalEnv(map[string]string{"GOOGLE_REGION": "europe-west4", "GKE_ACC_ZONE": "europe-west4-a"}))
	if err != nil || spec.Zone != "europe-west4-a" {
		t.Errorf("GKE_ACC_ZONE: %q, %v", spec.Zone, err)
	}
}

func TestParseAccTarget_subBlocks(t *testing.T) {
	spec, err := parseAccTarget(externalEnv(map[string]string{"GKE_ACC_SUB_BLOCKS": " sb-1, sb-2 ,sb-3,sb-4"}))
	if err != nil || !slices.Equal(spec.SubBlocks, []string{"sb-1", "sb-2", "sb-3", "sb-4"}) {
		t.Errorf("sub-blocks %v, %v", spec.SubBlocks, err)
	}
	for _, bad := range []string{"sb-1,sb-2", "sb-1,sb-1,sb-2,sb-3", "a,b,c,d,e"} {
		_, err := parseAccTarget(externalEnv(map[string]string{"GKE_ACC_SUB_BLOCKS": bad}))
		if err == nil || !strings.Contains(err.Error(), "GKE_ACC_SUB_BLOCKS") || !strings.Contains(err.Error(), "list 4 free, healthy sub-blocks") {
			t.Errorf("GKE_ACC_SUB_BLOCKS=%q: %v", bad, err)
		}
	}
}

func TestParseAccTarget_inventoryAndRunID(t *testing.T) {
	spec, err := parseAccTarget(externalEnv(map[string]string{"GKE_ACC_INVENTORY": "sandbox-default", "GKE_ACC_RUN_ID": "ci42"}))
	if err != nil || !spec.SandboxInventory || spec.RunID != "ci42" || spec.name("team-a") != "team-a-ci42" {
		t.Errorf("%+v, %v", spec, err)
	}
	_, err = parseAccTarget(externalEnv(map[string]string{"GKE_ACC_INVENTORY": "sandbox-default", "GKE_ACC_RESERVATION": "mine"}))
	if err == nil || !strings.Contains(err.Error(), "leave GKE_ACC_RESERVATION") {
		t.Errorf("the sandbox inventory with another reservation: %v", err)
	}
	_, err = parseAccTarget(externalEnv(map[string]string{"GKE_ACC_INVENTORY": "pod"}))
	if err == nil || !strings.Contains(err.Error(), `GKE_ACC_INVENTORY="pod"`) {
		t.Errorf("an unknown inventory: %v", err)
	}
	for _, bad := range []string{"CI", "run-1", "123456789"} {
		_, err := parseAccTarget(externalEnv(map[string]string{"GKE_ACC_RUN_ID": bad}))
		if err == nil || !strings.Contains(err.Error(), "GKE_ACC_RUN_ID") {
			t.Errorf("GKE_ACC_RUN_ID=%q: %v", bad, err)
		}
	}
}

// A real reservation's names replace the default inventory's where they
// stand alone, and nowhere else: not in other names, nor in Terraform
// addresses (block labels and references).
func TestTargetTranslate(t *testing.T) {
	spec, err := parseAccTarget(externalEnv(map[string]string{
		"GOOGLE_PROJECT": "my-proj", "GOOGLE_REGION": "", "GOOGLE_LOCATION": "us-east5", "GOOGLE_CLUSTER": "tpu-cluster",
		"GKE_ACC_ZONE": "us-east5-b", "GKE_ACC_RESERVATION": "ironwood-res", "GKE_ACC_RESERVATION_BLOCK": "ironwood-res-block-0001",
		"GKE_ACC_SUB_BLOCKS": "sb-0007,sb-0008,sb-0009,sb-0010",
	}))
	if err != nil {
		t.Fatal(err)
	}
	in := `resource "gke_subblock_node_pool" "sub-block-a1" {
  name                  = "sel-sub-block-a1"
  zone                  = "us-central1-a"
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a1"
}
slice = [gke_subblock_node_pool.sub-block-a4.name]
other = "tpu7x-reservation-2/block-b/sub-block-b1"
id    = "projects/sandbox-project/locations/us-central1/clusters/ironwood/nodePools/p"
data "gke_reservation_sub_blocks" "block-a" { reservation_block = "block-a" }`
	want := `resource "gke_subblock_node_pool" "sub-block-a1" {
  name                  = "sel-sub-block-a1"
  zone                  = "us-east5-b"
  reservation           = "ironwood-res"
  reservation_block     = "ironwood-res-block-0001"
  reservation_sub_block = "sb-0007"
}
slice = [gke_subblock_node_pool.sub-block-a4.name]
other = "tpu7x-reservation-2/block-b/sub-block-b1"
id    = "projects/my-proj/locations/us-east5/clusters/tpu-cluster/nodePools/p"
data "gke_reservation_sub_blocks" "block-a" { reservation_block = "ironwood-res-block-0001" }`
	if got := spec.translate(in); got != want {
		t.Errorf("translate:\n%s\nwant:\n%s", got, want)
	}
}
