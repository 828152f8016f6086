package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

var _ validator.List = partitionIDsValidator{}

// PartitionIDsValidator checks at plan time that a list of partition IDs has
// exactly as many entries as the topology found at topologyPath lists
// (A·B·C/64 for a super-slice, 1 for a sub-slice), and that
// no ID is empty or repeated. The count is checked even when some IDs are
// not known yet; uniqueness is checked among the known ones.
func PartitionIDsValidator(topologyPath path.Expression) validator.List {
	return partitionIDsValidator{topologyPath: topologyPath}
}

type partitionIDsValidator struct {
	topologyPath path.Expression
}

func (v partitionIDsValidator) Description(_ context.Context) string {
	return fmt.Sprintf("must hold exactly A·B·C/64 unique partition IDs for the super-slice topology in %s, or 1 for a sub-slice", v.topologyPath)
}

func (v partitionIDsValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (v partitionIDsValidator) ValidateList(ctx context.Context, req validator.ListRequest, resp *validator.ListResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	topo, ok := v.topology(ctx, req, resp)
	if !ok {
		return
	}

	elements := req.ConfigValue.Elements()
	ids := make([]string, 0, len(elements))
	for _, e := range elements {
		s, isString := e.(types.String)
		if !isString || s.IsUnknown() {
			continue
		}
		ids = append(ids, s.ValueString()) // a null ID reads as "" and is reported as empty
	}

	// Only the known IDs can be checked for repeats; the count is checked
	// over every element, known or not.
	for _, err := range []error{topology.CheckUniqueIDs(ids), topo.CheckPartitionCount(len(elements))} {
		if err != nil {
			resp.Diagnostics.AddAttributeError(req.Path, "Invalid Partition IDs", err.Error())
			return
		}
	}
}

// topology reads the sibling topology attribute. It returns false, with no
// diagnostic of its own, when that value is null, unknown or invalid: the
// topology's own validator reports an invalid one.
func (v partitionIDsValidator) topology(ctx context.Context, req validator.ListRequest, resp *validator.ListResponse) (topology.Topology, bool) {
	matched, diags := req.Config.PathMatches(ctx, req.PathExpression.Merge(v.topologyPath))
	resp.Diagnostics.Append(diags...)
	if diags.HasError() || len(matched) != 1 {
		return topology.Topology{}, false
	}
	var raw types.String
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, matched[0], &raw)...)
	if raw.IsNull() || raw.IsUnknown() {
		return topology.Topology{}, false
	}
	topo, err := topology.ParseTPU7x(raw.ValueString())
	return topo, err == nil
}
