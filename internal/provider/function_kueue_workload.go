package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

var _ function.Function = (*kueueWorkloadFunction)(nil)

// NewKueueWorkloadFunction returns provider::gke::kueue_workload.
func NewKueueWorkloadFunction() function.Function { return &kueueWorkloadFunction{} }

type kueueWorkloadFunction struct{}

var kueueWorkloadType = map[string]attr.Type{
	"pod_annotations":  types.MapType{ElemType: types.StringType},
	"node_selector":    types.MapType{ElemType: types.StringType},
	"hosts":            types.Int64Type,
	"pods":             types.Int64Type,
	"tpu_resources":    types.MapType{ElemType: types.StringType},
	"accelerator_type": types.StringType,
	"flex_start":       types.ObjectType{AttrTypes: kueueFlexWiringType},
}

// kueueFlexWiringType is the wiring of the same workload for the overflow
// flavor of gke_kueue_slicing (flex-start, no Slice).
var kueueFlexWiringType = map[string]attr.Type{
	"pod_annotations": types.MapType{ElemType: types.StringType},
	"node_selector":   types.MapType{ElemType: types.StringType},
}

func (f *kueueWorkloadFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "kueue_workload"
}

func (f *kueueWorkloadFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "Pod wiring of a workload on a dynamic slice of the topology, on the Kueue + TAS path",
		MarkdownDescription: "Returns what a pod of a workload that Kueue schedules on a dynamic slice carries: `pod_annotations` " +
			"(`cloud.google.com/gke-tpu-slice-topology`, which tells Kueue's slice admission check the topology to form), `node_selector` " +
			"(only `cloud.google.com/gke-tpu-accelerator: tpu7x`: no slice or topology selector, since the slice does not exist until Kueue " +
			"admits the workload and creates it), `hosts` (the slice's nodes), `pods` (the Job's `parallelism` and `completions`), " +
			"`tpu_resources` (each container's `google.com/tpu` requests and limits) and `accelerator_type` (`TPU_ACCELERATOR_TYPE`). " +
			"**Which flavor.** With `pod_annotations`, Kueue admits the workload only on the reservation's flavor of `gke_kueue_slicing` " +
			"(Topology Aware Scheduling places it, and the slice admission check forms its Slice). `flex_start` is the same workload's " +
			"wiring for the `overflow` flavor (flex-start capacity of GKE's Dynamic Workload Scheduler, whose `overflow.topology` is this " +
			"topology): no annotation (`pod_annotations` is empty) and a `node_selector` of the accelerator and the topology " +
			"(`cloud.google.com/gke-tpu-topology`); Kueue admits it only there, once its ProvisioningRequest is Provisioned, and no Slice " +
			"forms. A workload with the slice wiring never runs on the overflow flavor (its pods need a reservation partition), so a job " +
			"that may overflow is rendered with both wirings and the flex one submitted when the reservation is full. " +
			"The workload itself carries the LocalQueue label, `queue_labels` of `gke_kueue_slicing`. Fails with the validator's message when " +
			"the topology breaks a tpu7x rule, and when the workload does not fill the slice exactly (pods × chips per pod must equal the " +
			"slice's chips, with 1, 2 or 4 chips per pod), naming both numbers: the check GKE's slice admission check makes when the workload " +
			"is created, made at plan.",
		Parameters: []function.Parameter{topologyParameter(), podsParameter(), chipsPerPodParameter()},
		Return:     function.ObjectReturn{AttributeTypes: kueueWorkloadType},
	}
}

func (f *kueueWorkloadFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	w, ok := readWorkload(ctx, req, resp, false)
	if !ok {
		return
	}
	t := w.topology
	obj := types.ObjectValueMust(kueueWorkloadType, map[string]attr.Value{
		"pod_annotations":  stringMap(t.PodAnnotations()),
		"node_selector":    stringMap(map[string]string{wellknown.LabelAccelerator: topology.SliceType}),
		"hosts":            types.Int64Value(int64(t.Hosts())),
		"pods":             types.Int64Value(w.pods),
		"tpu_resources":    w.tpuResources(),
		"accelerator_type": types.StringValue(t.AcceleratorType()),
		"flex_start": types.ObjectValueMust(kueueFlexWiringType, map[string]attr.Value{
			"pod_annotations": stringMap(map[string]string{}),
			"node_selector":   stringMap(map[string]string{wellknown.LabelAccelerator: topology.SliceType, kueue.LabelTPUTopology: t.String()}),
		}),
	})
	resp.Error = function.ConcatFuncErrors(resp.Error, resp.Result.Set(ctx, obj))
}
