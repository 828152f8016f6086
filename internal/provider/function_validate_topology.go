package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/function"
)

var _ function.Function = (*validateTopologyFunction)(nil)

// NewValidateTopologyFunction returns provider::gke::validate_topology.
func NewValidateTopologyFunction() function.Function { return &validateTopologyFunction{} }

type validateTopologyFunction struct{}

func (f *validateTopologyFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "validate_topology"
}

func (f *validateTopologyFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Check a tpu7x slice topology against every rule",
		MarkdownDescription: "Returns `true` when the topology is valid for a tpu7x dynamic slice: the form `AxBxC`, " +
			"each dimension a multiple of 4, `A ≤ B ≤ C`, and at most 9216 chips. Otherwise it fails with the same message " +
			"the `topology` attribute of `gke_tpu_slice` gives at plan time, naming the broken rule and the fix. " +
			"Use it in a `variable` validation or a `precondition` to reject a bad topology before anything is planned.",
		Parameters: []function.Parameter{topologyParameter()},
		Return:     function.BoolReturn{},
	}
}

func (f *validateTopologyFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	if _, ok := readTopology(ctx, req, resp); !ok {
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, true))
}
