package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

var _ validator.String = topologyValidator{}

// TopologyValidator checks at plan time that a string is a valid tpu7x
// slice topology. Null and unknown values are left to other checks.
func TopologyValidator() validator.String { return topologyValidator{} }

type topologyValidator struct{}

func (topologyValidator) Description(_ context.Context) string {
	return "must be a tpu7x topology AxBxC: a super-slice (each dimension a multiple of 4, A ≤ B ≤ C, at most 9216 chips) or a sub-slice (exactly 2x2x1, 2x2x2, 2x2x4 or 2x4x4)"
}

func (v topologyValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (topologyValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := topology.ParseTPU7x(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Topology", err.Error())
	}
}
