package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
)

// The overflow flavor of gke_kueue_slicing: flex-start node pools with
// queued provisioning (GKE's Dynamic Workload Scheduler) on the same
// ClusterQueue, after the reservation.

// kueueOverflowModel is the overflow attribute.
type kueueOverflowModel struct {
	NodePools      types.List   `tfsdk:"node_pools"`
	Topology       types.String `tfsdk:"topology"`
	TPUQuota       types.Int64  `tfsdk:"tpu_quota"`
	MaxRunDuration types.String `tfsdk:"max_run_duration"`
	Retries        types.Int64  `tfsdk:"retries"`
}

var kueueOverflowType = map[string]attr.Type{
	"node_pools": types.ListType{ElemType: types.StringType}, "topology": types.StringType, "tpu_quota": types.Int64Type,
	"max_run_duration": types.StringType, "retries": types.Int64Type,
}

func kueueOverflowAttribute() schema.Attribute {
	return schema.SingleNestedAttribute{
		Optional: true,
		MarkdownDescription: "A second flavor for what the reservation does not take: capacity of GKE's Dynamic Workload Scheduler (DWS), " +
			"from flex-start node pools with queued provisioning, on the same ClusterQueue. It writes a `ResourceFlavor` named `<name>" +
			kueue.OverflowSuffix + "` for those pools' nodes (`cloud.google.com/gke-tpu-accelerator=tpu7x`, `cloud.google.com/gke-tpu-topology`, " +
			"`cloud.google.com/gke-queued=true`, tolerating GKE's `cloud.google.com/gke-queued` and `google.com/tpu` taints), a " +
			"`ProvisioningRequestConfig` (class `queued-provisioning.gke.io`, managed resource `google.com/tpu`, the maximum run duration, " +
			"the retries) and an `AdmissionCheck` of Kueue's `kueue.x-k8s.io/provisioning-request` controller, both of that name, and adds the " +
			"flavor to the ClusterQueue after the reservation's (flavor fungibility `whenCanBorrow: MayStopSearch`, `whenCanPreempt: " +
			"TryNextFlavor`), each admission check `onFlavors` its own flavor. A workload on this flavor waits until its ProvisioningRequest " +
			"is `Provisioned`, then runs on the nodes DWS made for it; those nodes are a node pool's, not partitions of the reservation, so " +
			"**no Slice forms** on them. Kueue puts a workload on the flavor its wiring fits: one that asks for a slice (the " +
			"`cloud.google.com/gke-tpu-slice-topology` annotation of `provider::gke::kueue_workload`'s `pod_annotations`, which Topology Aware " +
			"Scheduling reads) only on the reservation; one without it (`provider::gke::kueue_workload`'s `flex_start` wiring) only here. " +
			"So what overflows is a workload wired for it, not any workload of the queue: a slice workload that does not fit the reservation " +
			"waits for it, in Kueue's words `Flavor \"<name>" + kueue.OverflowSuffix + "\" does not support TopologyAwareScheduling, insufficient " +
			"unused quota for google.com/tpu in flavor <name>` (Kueue v0.19.2). No flavor of DWS capacity can take it: its pods need a reservation " +
			"partition (GKE's slice webhook requires the partition labels and state), which flex-start nodes never carry. To let a job of " +
			"`topology` overflow, render it with both wirings of one `kueue_workload` call and submit the flex one when the reservation is " +
			"full (guide \"Choosing a path\", section \"Writing a job that can overflow\"). " +
			"Checked at plan and again at apply: each pool exists (at plan, once GKE lists it), was created with flex-start and queued " +
			"provisioning, and has `topology`; `tpu_quota` holds a whole number of workloads of `topology`. A workload topology of " +
			"`workload_topologies` equal to `topology` is not held against the reservation.",
		Attributes: map[string]schema.Attribute{
			"node_pools": schema.ListAttribute{ElementType: types.StringType, Required: true,
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues()},
				MarkdownDescription: "The flex-start node pools with queued provisioning (no reservation, autoscaling from 0 nodes), by name; all of `topology`."},
			"topology": schema.StringAttribute{Required: true, Validators: []validator.String{TopologyValidator()},
				MarkdownDescription: "The pools' TPU topology (their `placement_policy.tpu_topology`): each workload on the flavor fills one pool of it (a pod per host)."},
			"tpu_quota": schema.Int64Attribute{Required: true, Validators: []validator.Int64{int64validator.AtLeast(1)},
				MarkdownDescription: "The flavor's `google.com/tpu` nominal quota, in chips: how much DWS capacity the queue may hold at once; a multiple of `topology`'s chips."},
			"max_run_duration": schema.StringAttribute{Optional: true, Computed: true, Default: stringdefault.StaticString("168h"),
				Validators:          []validator.String{maxRunDurationValidator{}},
				MarkdownDescription: "How long the nodes DWS provisions may live (the ProvisioningRequest's `maxRunDurationSeconds`), at most 7 days. Default `168h`."},
			"retries": schema.Int64Attribute{Optional: true, Computed: true, Default: int64default.StaticInt64(kueue.DefaultOverflowRetries),
				Validators:          []validator.Int64{int64validator.Between(0, 100)},
				MarkdownDescription: "How many times Kueue asks again after a ProvisioningRequest fails (`retryStrategy.backoffLimitCount`) before it rejects the workload's admission check. Default `3`."},
		},
	}
}

// overflowSpec is the engine's view of the overflow (nil when not set).
func (m kueueSlicingModel) overflowSpec(ctx context.Context) *kueue.KueueOverflow {
	if m.Overflow.IsNull() || m.Overflow.IsUnknown() {
		return nil
	}
	var o kueueOverflowModel
	m.Overflow.As(ctx, &o, basetypes.ObjectAsOptions{})
	out := &kueue.KueueOverflow{Topology: o.Topology.ValueString(), TPUQuota: o.TPUQuota.ValueInt64(), Retries: o.Retries.ValueInt64()}
	out.NodePools, _, _ = knownStrings(o.NodePools)
	out.MaxRunDuration, _ = time.ParseDuration(o.MaxRunDuration.ValueString())
	return out
}

// overflowValue is the overflow attribute of an import.
func overflowValue(o *kueue.KueueOverflow) types.Object {
	if o == nil {
		return types.ObjectNull(kueueOverflowType)
	}
	pools := make([]attr.Value, len(o.NodePools))
	for i, p := range o.NodePools {
		pools[i] = types.StringValue(p)
	}
	return types.ObjectValueMust(kueueOverflowType, map[string]attr.Value{
		"node_pools": types.ListValueMust(types.StringType, pools), "topology": types.StringValue(o.Topology),
		"tpu_quota": types.Int64Value(o.TPUQuota), "max_run_duration": types.StringValue(shortDuration(o.MaxRunDuration)),
		"retries": types.Int64Value(o.Retries),
	})
}

// shortDuration writes d in whole hours, minutes or seconds ("168h").
func shortDuration(d time.Duration) string {
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return fmt.Sprintf("%ds", d/time.Second)
}

// maxRunDurationValidator: a duration of whole seconds, at most GKE's
// 7 days.
type maxRunDurationValidator struct{}

func (maxRunDurationValidator) Description(context.Context) string {
	return "must be " + durationRule + ", at most 168h (7 days)"
}

func (v maxRunDurationValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (maxRunDurationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	value := req.ConfigValue.ValueString()
	d, err := parseDuration(value)
	switch {
	case err != nil:
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Duration", durationDetail(req.Path.String(), value, err))
	case d > kueue.DefaultMaxRunDuration || d%time.Second != 0:
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Maximum Run Duration", fmt.Sprintf(
			"%s = %q: GKE's Dynamic Workload Scheduler keeps nodes at most 7 days, in whole seconds; write at most \"168h\", such as \"24h\".",
			req.Path, value))
	}
}
