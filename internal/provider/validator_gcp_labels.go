package provider

import (
	"context"
	"fmt"
	"regexp"
	"sort"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// GCP's label rules (Resource Manager, "Requirements for labels"): at most
// 64 labels; keys of 1-63 characters, values of 0-63, of lowercase letters
// (international ones too), digits, underscores and dashes, each under 128
// bytes; keys start with a lowercase letter.
const (
	gcpLabelsMax     = 64
	gcpLabelMaxBytes = 127
	gcpLabelRule     = "keys of 1-63 lowercase letters, digits, _ or -, starting with a lowercase letter; values of 0-63 of the same characters; at most 64 labels"
)

var (
	gcpLabelKeyRE   = regexp.MustCompile(`^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$`)
	gcpLabelValueRE = regexp.MustCompile(`^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$`)
)

var _ validator.Map = gcpLabelsValidator{}

// gcpLabelsValidator checks at validate time that a map of strings is a
// set of GCP labels, so that a bad one fails the plan, not the apply.
type gcpLabelsValidator struct{}

func (gcpLabelsValidator) Description(context.Context) string { return "GCP labels: " + gcpLabelRule }

func (v gcpLabelsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (gcpLabelsValidator) ValidateMap(_ context.Context, req validator.MapRequest, resp *validator.MapResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	elems := req.ConfigValue.Elements()
	if len(elems) > gcpLabelsMax {
		resp.Diagnostics.AddAttributeError(req.Path, "Too Many GCP Labels",
			fmt.Sprintf("%s has %d labels; GCP allows at most %d", req.Path, len(elems), gcpLabelsMax))
	}
	keys := make([]string, 0, len(elems))
	for k := range elems {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !gcpLabelKeyRE.MatchString(k) || len(k) > gcpLabelMaxBytes {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(k), "Invalid GCP Label Key",
				fmt.Sprintf("%s: key %q is not a GCP label key (%s)", req.Path, k, gcpLabelRule))
			continue
		}
		s, ok := elems[k].(types.String)
		if !ok || s.IsNull() || s.IsUnknown() {
			continue
		}
		if value := s.ValueString(); !gcpLabelValueRE.MatchString(value) || len(value) > gcpLabelMaxBytes {
			resp.Diagnostics.AddAttributeError(req.Path.AtMapKey(k), "Invalid GCP Label Value",
				fmt.Sprintf("%s: the value %q of %q is not a GCP label value (%s)", req.Path, value, k, gcpLabelRule))
		}
	}
}
