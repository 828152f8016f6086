package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func validateGCPLabels(labels map[string]string) []string {
	elems := map[string]attr.Value{}
	for k, v := range labels {
		elems[k] = types.StringValue(v)
	}
	req := validator.MapRequest{Path: path.Root("resource_labels"), ConfigValue: types.MapValueMust(types.StringType, elems)}
	var resp validator.MapResponse
	gcpLabelsValidator{}.ValidateMap(context.Background(), req, &resp)
	var got []string
	for _, d := range resp.Diagnostics.Errors() {
		got = append(got, d.Summary())
	}
	return got
}

func TestGCPLabelsValidator(t *testing.T) {
	for _, tc := range []struct {
		name   string
		labels map[string]string
		want   string // the summaries of the errors, joined by ","
	}{
		{"valid", map[string]string{"env": "prod", "cost-center": "ml_1", "a": "", "équipe": "données", "k" + strings.Repeat("x", 62): strings.Repeat("9", 63)}, ""},
		{"upper-case key", map[string]string{"Env": "prod"}, "Invalid GCP Label Key"},
		{"key starts with a digit", map[string]string{"1env": "prod"}, "Invalid GCP Label Key"},
		{"key starts with a dash", map[string]string{"-env": "prod"}, "Invalid GCP Label Key"},
		{"empty key", map[string]string{"": "prod"}, "Invalid GCP Label Key"},
		{"key of 64", map[string]string{"k" + strings.Repeat("x", 63): "v"}, "Invalid GCP Label Key"},
		{"key with a dot", map[string]string{"team.name": "ml"}, "Invalid GCP Label Key"},
		{"upper-case value", map[string]string{"env": "Prod"}, "Invalid GCP Label Value"},
		{"value with a slash", map[string]string{"env": "a/b"}, "Invalid GCP Label Value"},
		{"value of 64", map[string]string{"env": strings.Repeat("v", 64)}, "Invalid GCP Label Value"},
		{"two bad", map[string]string{"A": "x", "b": "Y"}, "Invalid GCP Label Key,Invalid GCP Label Value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(validateGCPLabels(tc.labels), ","); got != tc.want {
				t.Errorf("errors %q, want %q", got, tc.want)
			}
		})
	}
}

func TestGCPLabelsValidatorCount(t *testing.T) {
	for n, want := range map[int]string{64: "", 65: "Too Many GCP Labels"} {
		labels := map[string]string{}
		for i := range n {
			labels[fmt.Sprintf("l%d", i)] = "v"
		}
		if got := strings.Join(validateGCPLabels(labels), ","); got != want {
			t.Errorf("%d labels: errors %q, want %q", n, got, want)
		}
	}
}

func TestGCPLabelsValidatorNullAndUnknown(t *testing.T) {
	for _, v := range []types.Map{types.MapNull(types.StringType), types.MapUnknown(types.StringType)} {
		var resp validator.MapResponse
		gcpLabelsValidator{}.ValidateMap(context.Background(), validator.MapRequest{Path: path.Root("resource_labels"), ConfigValue: v}, &resp)
		if resp.Diagnostics.HasError() {
			t.Errorf("%s: %v", v, resp.Diagnostics)
		}
	}
}
