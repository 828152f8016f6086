package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/function"
)

var _ function.Function = (*acceleratorTypeFunction)(nil)

// NewAcceleratorTypeFunction returns provider::gke::accelerator_type.
func NewAcceleratorTypeFunction() function.Function { return &acceleratorTypeFunction{} }

type acceleratorTypeFunction struct{}

func (f *acceleratorTypeFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "accelerator_type"
}

func (f *acceleratorTypeFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "TPU accelerator type (TPU_ACCELERATOR_TYPE) of a tpu7x slice topology",
		MarkdownDescription: "Returns `tpu7x-<TensorCores>`, where a tpu7x chip has 2 TensorCores: the value of the `TPU_ACCELERATOR_TYPE` " +
			"environment variable of a workload on a slice of the topology. For example `4x4x4` gives `tpu7x-128`. " +
			"Fails with the validator's message when the topology breaks a tpu7x rule.",
		Parameters: []function.Parameter{topologyParameter()},
		Return:     function.StringReturn{},
	}
}

func (f *acceleratorTypeFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	t, ok := readTopology(ctx, req, resp)
	if !ok {
		return
	}
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, t.AcceleratorType()))
}
