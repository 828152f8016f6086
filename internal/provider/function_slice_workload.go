package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

var _ function.Function = (*sliceWorkloadFunction)(nil)

// NewSliceWorkloadFunction returns provider::gke::slice_workload.
func NewSliceWorkloadFunction() function.Function { return &sliceWorkloadFunction{} }

type sliceWorkloadFunction struct{}

var sliceWorkloadType = map[string]attr.Type{
	"pods":             types.Int64Type,
	"pods_per_host":    types.Int64Type,
	"hosts":            types.Int64Type,
	"tpu_resources":    types.MapType{ElemType: types.StringType},
	"accelerator_type": types.StringType,
}

func (f *sliceWorkloadFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "slice_workload"
}

func (f *sliceWorkloadFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Checks that a workload fills a slice of the topology, and returns its pod counts and TPU requests",
		MarkdownDescription: "For a workload scheduled directly on a `gke_tpu_slice`: checks that `pods` pods with `chips_per_pod` chips each fill " +
			"a slice of the topology exactly, and returns `pods` (the Job's `parallelism` and `completions`), `pods_per_host`, `hosts` " +
			"(the slice's nodes), `tpu_resources` (each container's `google.com/tpu` requests and limits; empty with DRA, whose claim gives " +
			"the chips: use the slice's `pod_resource_claims`) and `accelerator_type` (`TPU_ACCELERATOR_TYPE`). With `device_access = " +
			"\"device_plugin\"`, pods × chips per pod must equal the slice's chips, with 1, 2 or 4 chips per pod; with `\"dra\"`, each pod " +
			"claims a whole host, so pods must equal the slice's hosts and chips per pod is 4. Fails at plan naming both numbers, and with " +
			"the validator's message when the topology breaks a tpu7x rule.",
		Parameters: []function.Parameter{
			topologyParameter(),
			function.StringParameter{
				Name:                "device_access",
				MarkdownDescription: "How the pods reach the chips, as the slice's `device_access`: `device_plugin` or `dra`.",
			},
			podsParameter(),
			chipsPerPodParameter(),
		},
		Return: function.ObjectReturn{AttributeTypes: sliceWorkloadType},
	}
}

func (f *sliceWorkloadFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	w, ok := readWorkload(ctx, req, resp, true)
	if !ok {
		return
	}
	obj := types.ObjectValueMust(sliceWorkloadType, map[string]attr.Value{
		"pods":             types.Int64Value(w.pods),
		"pods_per_host":    types.Int64Value(w.podsPerHost()),
		"hosts":            types.Int64Value(int64(w.topology.Hosts())),
		"tpu_resources":    w.tpuResources(),
		"accelerator_type": types.StringValue(w.topology.AcceleratorType()),
	})
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, obj))
}
