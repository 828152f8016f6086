package provider

import (
	"context"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

func TestReservedNodeLabel(t *testing.T) {
	t.Parallel()
	for key, wantRule := range map[string]string{
		"cloud.google.com/gke-nodepool":            "cloud.google.com domain",
		"cloud.google.com/gke-tpu-partition-4x4x4": "cloud.google.com domain",
		"Cloud.Google.com/gke-tpu-accelerator":     "cloud.google.com domain",
		"node.gke.io/created-by-mig":               "gke.io domain",
		"kubernetes.io/hostname":                   "kubernetes.io domain",
		"topology.kubernetes.io/zone":              "kubernetes.io domain",
		"node-role.kubernetes.io/worker":           "kubernetes.io domain",
		"k8s.io/x":                                 "k8s.io domain",
	} {
		err := reservedNodeLabel(key)
		if err == nil {
			t.Errorf("node label %q was accepted", key)
			continue
		}
		if err.Key != key || err.What != "node label" || !strings.Contains(err.Rule, wantRule) {
			t.Errorf("node label %q: %+v, want the key and a rule naming the %s", key, err, wantRule)
		}
		_, name, _ := strings.Cut(key, "/")
		if !strings.Contains(err.Instead, `"`+name+`"`) || !strings.Contains(err.Instead, "example.com/"+name) {
			t.Errorf("node label %q: instead %q, want %q and example.com/%s suggested", key, err.Instead, name, name)
		}
	}
	for _, key := range []string{
		"team", "example.com/team", "cloud.google.com/gke-tpu-dra-driver", "cloud.google.com/compute-class",
		"notkubernetes.io/x", "google.com/tpu", "mycloud.google.com.example/x",
	} {
		if err := reservedNodeLabel(key); err != nil {
			t.Errorf("node label %q refused: %v", key, err)
		}
	}
}

func TestReservedTaint(t *testing.T) {
	t.Parallel()
	for key, wantRule := range map[string]string{
		"google.com/tpu":                 "every TPU node",
		"node.kubernetes.io/unreachable": "kubernetes.io domain",
		"cloud.google.com/gke-queued":    "cloud.google.com domain",
		"components.gke.io/gke-managed":  "gke.io domain",
	} {
		err := reservedTaint(key)
		if err == nil || err.What != "taint" || !strings.Contains(err.Rule, wantRule) {
			t.Errorf("taint %q: %v, want refused with a rule naming %q", key, err, wantRule)
		}
	}
	for _, key := range []string{"dedicated", "example.com/team", "cloud.google.com/gke-spot", "cloud.google.com/compute-class"} {
		if err := reservedTaint(key); err != nil {
			t.Errorf("taint %q refused: %v", key, err)
		}
	}
}

func TestNodeLabelsValidator(t *testing.T) {
	t.Parallel()
	labels := func(keys ...string) types.Map {
		m := map[string]attr.Value{}
		for _, k := range keys {
			m[k] = types.StringValue("x")
		}
		return types.MapValueMust(types.StringType, m)
	}
	for name, tc := range map[string]struct {
		value types.Map
		want  []string
	}{
		"null":    {types.MapNull(types.StringType), nil},
		"unknown": {types.MapUnknown(types.StringType), nil},
		"own":     {labels("team", "cloud.google.com/gke-tpu-dra-driver"), nil},
		"two reserved": {labels("team", "kubernetes.io/os", "cloud.google.com/gke-nodepool"),
			[]string{`node label "cloud.google.com/gke-nodepool"`, `node label "kubernetes.io/os"`}},
	} {
		resp := &validator.MapResponse{}
		nodeLabelsValidator{}.ValidateMap(context.Background(), validator.MapRequest{Path: path.Root("node_labels"), ConfigValue: tc.value}, resp)
		if got := resp.Diagnostics.ErrorsCount(); got != len(tc.want) {
			t.Errorf("%s: %d errors, want %d: %v", name, got, len(tc.want), resp.Diagnostics)
			continue
		}
		for i, d := range resp.Diagnostics.Errors() {
			if d.Summary() != "Reserved Node Label" || !strings.Contains(d.Detail(), tc.want[i]) {
				t.Errorf("%s: error %d is %q: %q, want Reserved Node Label naming %s", name, i, d.Summary(), d.Detail(), tc.want[i])
			}
		}
	}
}

func TestTaintKeyValidator(t *testing.T) {
	t.Parallel()
	for value, wantErr := range map[types.String]bool{
		types.StringValue("google.com/tpu"): true, types.StringValue("dedicated"): false,
		types.StringNull(): false, types.StringUnknown(): false,
	} {
		resp := &validator.StringResponse{}
		taintKeyValidator{}.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("key"), ConfigValue: value}, resp)
		if resp.Diagnostics.HasError() != wantErr {
			t.Errorf("taint key %s: diagnostics %v, want an error: %t", value, resp.Diagnostics, wantErr)
		}
	}
}

// A node label or taint that GKE sets itself fails at validate, before any
// API call: before, the pool was created, its nodes carried the wrong pool
// label, and the create waited 60 minutes for nodes that never matched.
func TestNodePoolReservedKeysRefusedAtValidate(t *testing.T) {
	pool := func(body string) string {
		return withProvider(`resource "gke_subblock_node_pool" "p" {
  name              = "p"
  workload_policy   = "w"
  reservation       = "r"
  reservation_block = "b"
` + body + `
}`)
	}
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []tfresource.TestStep{
			{
				Config:   pool(`  node_labels = { "cloud.google.com/gke-nodepool" = "x" }`),
				PlanOnly: true,
				ExpectError: wrapped(`Reserved Node Label`, `node label "cloud.google.com/gke-nodepool": GKE sets the node labels of the cloud.google.com domain`,
					`a pool may set only cloud.google.com/compute-class, cloud.google.com/gke-tpu-dra-driver there`, `Use a key of your own, without that prefix: "gke-nodepool"`),
			},
			{
				Config: pool(`  taint {
    key    = "google.com/tpu"
    value  = "present"
    effect = "NO_SCHEDULE"
  }`),
				PlanOnly:    true,
				ExpectError: wrapped(`Reserved Taint`, `taint "google.com/tpu": GKE sets this taint on every TPU node itself`),
			},
		},
	})
}
