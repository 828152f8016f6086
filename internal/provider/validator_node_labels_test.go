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

// The node label keys GKE refuses are refused, with the rule and what to
// write instead; the ones the kubelet may set, the ones GKE's guides have a
// pool set and a pool's own are not (the documents are named in
// validator_node_labels.go).
func TestReservedNodeLabel(t *testing.T) {
	t.Parallel()
	for key, wantRule := range map[string]string{
		"cloud.google.com/gke-nodepool":            "cloud.google.com domain",
		"cloud.google.com/gke-tpu-partition-4x4x4": "cloud.google.com domain",
		"cloud.google.com/gke-spot":                "cloud.google.com domain",
		"cloud.google.com/gke-placement-group":     "cloud.google.com domain",
		"cloud.google.com/custom-owned-by":         "cloud.google.com domain",
		"Cloud.Google.com/gke-tpu-accelerator":     "cloud.google.com domain",
		"node.gke.io/created-by-mig":               "gke.io domain",
		"sandbox.gke.io/runtime":                   "gke.io domain",
		"node-role.kubernetes.io/worker":           "kubernetes.io domain",
		"node-restriction.kubernetes.io/x":         "kubernetes.io domain",
		"kubernetes.io/role":                       "kubernetes.io domain",
		"app.kubernetes.io/component":              "kubernetes.io domain",
		"k8s.io/x":                                 "k8s.io domain",
		"example.k8s.io/x":                         "k8s.io domain",
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
		if reason, reserved := ReservedNodeLabel(key); !reserved || reason != err.Error() {
			t.Errorf("ReservedNodeLabel(%q) = %q, %v; want %q, true", key, reason, reserved, err.Error())
		}
	}
	for key, kubeletSets := range map[string]bool{
		"team": false, "example.com/team": false, "cloud.google.com/gke-tpu-dra-driver": false, "cloud.google.com/compute-class": false,
		"notkubernetes.io/x": false, "google.com/tpu": false, "mycloud.google.com.example/x": false, "example.com/kubernetes.io": false,
		"node.kubernetes.io/foo": false, "node.kubernetes.io/exclude-from-external-load-balancers": false,
		"pool.node.kubernetes.io/x": false, "kubelet.kubernetes.io/x": false,
		"kubernetes.io/hostname": true, "kubernetes.io/os": true, "kubernetes.io/arch": true, "node.kubernetes.io/instance-type": true,
		"topology.kubernetes.io/zone": true, "topology.kubernetes.io/region": true, "beta.kubernetes.io/instance-type": true,
		"failure-domain.beta.kubernetes.io/zone": true,
	} {
		if err := reservedNodeLabel(key); err != nil {
			t.Errorf("node label %q refused: %v", key, err)
		}
		if reason, reserved := ReservedNodeLabel(key); reserved || reason != "" {
			t.Errorf("ReservedNodeLabel(%q) = %q, %v; want accepted", key, reason, reserved)
		}
		if got := kubeletSetsLabel(key); got != kubeletSets {
			t.Errorf("node label %q: the kubelet sets it %v, want %v", key, got, kubeletSets)
		}
	}
}

// The taint keys GKE refuses are refused; the ones GKE's guides have a pool
// set (Spot and preemptible VMs, compute classes) and a pool's own are not.
func TestReservedTaint(t *testing.T) {
	t.Parallel()
	for key, wantRule := range map[string]string{
		"google.com/tpu":                        "every TPU node",
		"Google.com/tpu":                        "every TPU node",
		"node.kubernetes.io/unreachable":        "kubernetes.io domain",
		"node.kubernetes.io/foo":                "kubernetes.io domain",
		"node-role.kubernetes.io/control-plane": "kubernetes.io domain",
		"k8s.io/x":                              "k8s.io domain",
		"cloud.google.com/gke-queued":           "cloud.google.com domain",
		"cloud.google.com/gke-nodepool":         "cloud.google.com domain",
		"components.gke.io/gke-managed":         "gke.io domain",
	} {
		err := reservedTaint(key)
		if err == nil || err.What != "taint" || !strings.Contains(err.Rule, wantRule) {
			t.Errorf("taint %q: %v, want refused with a rule naming %q", key, err, wantRule)
			continue
		}
		if reason, reserved := ReservedNodeTaint(key); !reserved || reason != err.Error() {
			t.Errorf("ReservedNodeTaint(%q) = %q, %v; want %q, true", key, reason, reserved, err.Error())
		}
	}
	for _, key := range []string{
		"dedicated", "example.com/team", "nvidia.com/gpu",
		"cloud.google.com/gke-spot", "cloud.google.com/gke-preemptible", "cloud.google.com/compute-class",
	} {
		if err := reservedTaint(key); err != nil {
			t.Errorf("taint %q refused: %v", key, err)
		}
		if reason, reserved := ReservedNodeTaint(key); reserved || reason != "" {
			t.Errorf("ReservedNodeTaint(%q) = %q, %v; want accepted", key, reason, reserved)
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
		value      types.Map
		want, warn []string
	}{
		"null":    {types.MapNull(types.StringType), nil, nil},
		"unknown": {types.MapUnknown(types.StringType), nil, nil},
		"own":     {labels("team", "cloud.google.com/gke-tpu-dra-driver", "node.kubernetes.io/exclude-from-external-load-balancers"), nil, nil},
		"two reserved": {labels("team", "node-role.kubernetes.io/worker", "cloud.google.com/gke-nodepool"),
			[]string{`node label "cloud.google.com/gke-nodepool"`, `node label "node-role.kubernetes.io/worker"`}, nil},
		"set by the kubelet": {labels("kubernetes.io/os", "node.kubernetes.io/instance-type", "k8s.io/x"),
			[]string{`node label "k8s.io/x"`}, []string{`node label "kubernetes.io/os"`, `node label "node.kubernetes.io/instance-type"`}},
	} {
		resp := &validator.MapResponse{}
		nodeLabelsValidator{}.ValidateMap(context.Background(), validator.MapRequest{Path: path.Root("node_labels"), ConfigValue: tc.value}, resp)
		if got, gotWarnings := resp.Diagnostics.ErrorsCount(), resp.Diagnostics.WarningsCount(); got != len(tc.want) || gotWarnings != len(tc.warn) {
			t.Errorf("%s: %d errors and %d warnings, want %d and %d: %v", name, got, gotWarnings, len(tc.want), len(tc.warn), resp.Diagnostics)
			continue
		}
		for i, d := range resp.Diagnostics.Errors() {
			if d.Summary() != "Reserved Node Label" || !strings.Contains(d.Detail(), tc.want[i]) {
				t.Errorf("%s: error %d is %q: %q, want Reserved Node Label naming %s", name, i, d.Summary(), d.Detail(), tc.want[i])
			}
		}
		for i, d := range resp.Diagnostics.Warnings() {
			if d.Summary() != "Node Label Set by the Kubelet" || !strings.Contains(d.Detail(), tc.warn[i]) || !strings.Contains(d.Detail(), "the behavior is undefined") {
				t.Errorf("%s: warning %d is %q: %q, want Node Label Set by the Kubelet naming %s", name, i, d.Summary(), d.Detail(), tc.warn[i])
			}
		}
	}
}

func TestTaintKeyValidator(t *testing.T) {
	t.Parallel()
	for value, wantErr := range map[types.String]bool{
		types.StringValue("google.com/tpu"): true, types.StringValue("dedicated"): false,
		types.StringValue("cloud.google.com/gke-spot"): false, types.StringValue("cloud.google.com/gke-nodepool"): true,
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
