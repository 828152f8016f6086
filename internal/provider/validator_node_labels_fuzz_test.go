package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Node labels and taint keys as a user writes them: nothing panics the
// validators, a reserved key always says why, and a key the validators
// accept is not reserved.
func FuzzNodeLabelsAndTaints(f *testing.F) {
	for _, seed := range []string{"team", "cloud.google.com/gke-nodepool", "Cloud.Google.com/x", "kubernetes.io/hostname", "node.kubernetes.io/x",
		"example.com/team", "", "/", "a/b/c", "node-restriction.kubernetes.io/x", "GOOGLE.com/tpu"} {
		f.Add(seed, "v")
	}
	f.Fuzz(func(t *testing.T, key, value string) {
		for what, check := range map[string]func(string) (string, bool){"label": ReservedNodeLabel, "taint": ReservedNodeTaint} {
			if reason, reserved := check(key); reserved && reason == "" {
				t.Fatalf("%s key %q is reserved with no reason", what, key)
			}
		}
		var labels validator.MapResponse
		nodeLabelsValidator{}.ValidateMap(context.Background(), validator.MapRequest{Path: path.Root("node_labels"),
			ConfigValue: types.MapValueMust(types.StringType, map[string]attr.Value{key: types.StringValue(value)})}, &labels)
		if _, reserved := ReservedNodeLabel(key); reserved && !labels.Diagnostics.HasError() {
			t.Fatalf("node label %q is reserved, and the validator accepts it", key)
		}
		var taint validator.StringResponse
		taintKeyValidator{}.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("key"), ConfigValue: types.StringValue(key)}, &taint)
		if _, reserved := ReservedNodeTaint(key); reserved && !taint.Diagnostics.HasError() {
			t.Fatalf("taint key %q is reserved, and the validator accepts it", key)
		}
	})
}
