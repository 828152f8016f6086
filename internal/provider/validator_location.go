package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
)

var _ validator.String = locationValidator{}

// LocationValidator checks at plan time that a string has the form of a
// Google Cloud region or zone, as kind allows. Null and unknown values are
// left to other checks.
func LocationValidator(kind location.Kind) validator.String {
	return locationValidator{kind: kind}
}

type locationValidator struct{ kind location.Kind }

func (v locationValidator) Description(_ context.Context) string {
	switch v.kind {
	case location.RegionOnly:
		return "must be a region name, such as us-central1"
	case location.ZoneOnly:
		return "must be a zone name, such as us-central1-a"
	}
	return "must be a region name (us-central1) or a zone name (us-central1-a)"
}

func (v locationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v locationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := location.Check(req.ConfigValue.ValueString(), v.kind); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Location", req.Path.String()+": "+err.Error())
	}
}
