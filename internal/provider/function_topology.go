package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// topologyParameter is the single argument every topology function takes.
func topologyParameter() function.StringParameter {
	return function.StringParameter{
		Name:                "topology",
		MarkdownDescription: "A tpu7x slice topology in the form `AxBxC`: a super-slice, for example `4x8x8` (each dimension a multiple of 4, `A ≤ B ≤ C`, at most 9216 chips), or a sub-slice, exactly `2x2x1`, `2x2x2`, `2x2x4` or `2x4x4`.",
	}
}

// readTopology reads and validates the topology argument. On a broken rule
// it sets the function error, whose text is exactly the validator's.
func readTopology(ctx context.Context, req function.RunRequest, resp *function.RunResponse) (topology.Topology, bool) {
	var raw string
	resp.Error = function.ConcatFuncErrors(resp.Error, req.Arguments.Get(ctx, &raw))
	if resp.Error != nil {
		return topology.Topology{}, false
	}
	t, err := topology.ParseTPU7x(raw)
	if err != nil {
		resp.Error = function.ConcatFuncErrors(resp.Error, function.NewArgumentFuncError(0, err.Error()))
		return topology.Topology{}, false
	}
	return t, true
}

// topologyNumberFunction is a function of a topology that returns a number.
type topologyNumberFunction struct {
	name, summary, description string
	value                      func(topology.Topology) int
}

var _ function.Function = (*topologyNumberFunction)(nil)

func (f *topologyNumberFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = f.name
}

func (f *topologyNumberFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary:             f.summary,
		MarkdownDescription: f.description + " Fails with the validator's message when the topology breaks a tpu7x rule.",
		Parameters:          []function.Parameter{topologyParameter()},
		Return:              function.Int64Return{},
	}
}

func (f *topologyNumberFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	t, ok := readTopology(ctx, req, resp)
	if !ok {
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, int64(f.value(t))))
}
