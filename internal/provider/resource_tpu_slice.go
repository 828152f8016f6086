package provider

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/listplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

var (
	_ resource.Resource                   = (*tpuSliceResource)(nil)
	_ resource.ResourceWithConfigure      = (*tpuSliceResource)(nil)
	_ resource.ResourceWithImportState    = (*tpuSliceResource)(nil)
	_ resource.ResourceWithModifyPlan     = (*tpuSliceResource)(nil)
	_ resource.ResourceWithValidateConfig = (*tpuSliceResource)(nil)
	_ resource.ResourceWithIdentity       = (*tpuSliceResource)(nil)
)

const (
	defaultSliceCreateTimeout = 30 * time.Minute
	defaultSliceDeleteTimeout = 30 * time.Minute
	defaultSliceUpdateTimeout = 5 * time.Minute
	// maxSliceNameLength is the limit GKE documents (and the open-source
	// controller truncates to).
	maxSliceNameLength = 49
)

var sliceNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

// NewTPUSliceResource returns gke_tpu_slice.
func NewTPUSliceResource() resource.Resource { return &tpuSliceResource{} }

type tpuSliceResource struct{ clients *clients.Set }

type tpuSliceModel struct {
	ID                   types.String            `tfsdk:"id"`
	Name                 types.String            `tfsdk:"name"`
	Type                 types.String            `tfsdk:"type"`
	Topology             types.String            `tfsdk:"topology"`
	PartitionIDs         types.List              `tfsdk:"partition_ids"`
	PartitionSelector    *partitionSelectorModel `tfsdk:"partition_selector"`
	RetryOnFailure       types.Bool              `tfsdk:"retry_on_failure"`
	AllowDegraded        types.Bool              `tfsdk:"allow_degraded"`
	ForceRemoveFinalizer types.Bool              `tfsdk:"force_remove_finalizer"`
	State                types.String            `tfsdk:"state"`
	Message              types.String            `tfsdk:"message"`
	Ready                types.Bool              `tfsdk:"ready"`
	Chips                types.Int64             `tfsdk:"chips"`
	Hosts                types.Int64             `tfsdk:"hosts"`
	AcceleratorType      types.String            `tfsdk:"accelerator_type"`
	NodeSelector         types.Map               `tfsdk:"node_selector"`
	PodAnnotations       types.Map               `tfsdk:"pod_annotations"`
	DeviceAccess         types.String            `tfsdk:"device_access"`
	TPUResources         types.Map               `tfsdk:"tpu_resources"`
	ClaimTemplate        types.String            `tfsdk:"resource_claim_template"`
	PodResourceClaims    types.List              `tfsdk:"pod_resource_claims"`
	Conditions           types.List              `tfsdk:"conditions"`
	Timeouts             timeouts.Value          `tfsdk:"timeouts"`
}

type partitionSelectorModel struct {
	NodePools      types.List   `tfsdk:"node_pools"`
	WorkloadPolicy types.String `tfsdk:"workload_policy"`
	Block          types.String `tfsdk:"block"`
	AllowDegraded  types.Bool   `tfsdk:"allow_degraded"`
}

var conditionType = types.ObjectType{AttrTypes: map[string]attr.Type{
	"type": types.StringType, "status": types.StringType, "reason": types.StringType, "message": types.StringType,
}}

func (r *tpuSliceResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tpu_slice"
}

func (r *tpuSliceResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: "A dynamic TPU slice: a Slice custom resource (`accelerator.gke.io/v1beta1`) driven to `ACTIVE` by the GKE slice " +
			"controller. A **super-slice** joins 4x4x4 partitions (one per reservation sub-block) into one ICI slice of topology `AxBxC`; a " +
			"**sub-slice** is one of the shapes `2x2x1`, `2x2x2`, `2x2x4` or `2x4x4` inside one sub-block, formed from one partition of its own shape " +
			"(GKE 1.36.0-gke.3712000 or later). The topology rules, the partition count and the cluster's GKE version are checked at plan time. " +
			"Partitions are listed, or selected from node pools (`partition_selector`: healthy partitions first, none held by another slice or " +
			"overlapping one, all in one block, sub-slices packed into already fragmented sub-blocks; chosen at apply and kept). Create waits " +
			"with a watch and fails as soon as the controller reports `SliceCreationFailed` or `FAILED`, with its message. Changing the topology " +
			"or the partitions replaces the slice. A create that finds a Slice of its name with the same type, topology and partitions (or partitions " +
			"that satisfy its `partition_selector`), as an apply killed before it recorded the slice leaves it, adopts it with a warning; one that " +
			"differs fails, saying what differs and the `terraform import` command.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, PlanModifiers: keep, MarkdownDescription: "The slice name; the import ID."},
			"name": schema.StringAttribute{
				Required: true, PlanModifiers: replace,
				MarkdownDescription: fmt.Sprintf("Name of the Slice: a DNS label of at most %d characters (lower-case letters, digits, hyphens; starts with a letter). Pods select the slice's nodes by it.", maxSliceNameLength),
				Validators: []validator.String{
					stringvalidator.LengthAtMost(maxSliceNameLength),
					stringvalidator.RegexMatches(sliceNameRE, "must be a DNS label: lower-case letters, digits and hyphens, starting with a letter and ending with a letter or digit"),
				},
			},
			"type": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(topology.SliceType), PlanModifiers: replace,
				Validators:          []validator.String{stringvalidator.OneOf(topology.SliceType)},
				MarkdownDescription: "Accelerator family; GKE dynamic slicing accepts only `tpu7x` (the default).",
			},
			"topology": schema.StringAttribute{
				Required: true, PlanModifiers: replace, Validators: []validator.String{TopologyValidator()},
				MarkdownDescription: "Topology `AxBxC`. A super-slice: each dimension a multiple of 4, `A ≤ B ≤ C`, at most 9216 chips, for example `4x8x8` " +
					"(4 partitions) or `16x24x24` (a full pod, 144). A sub-slice inside one sub-block: exactly `2x2x1`, `2x2x2`, `2x2x4` or `2x4x4` " +
					"(1, 2, 4 or 8 hosts; one partition ID of that shape).",
			},
			"partition_ids": schema.ListAttribute{
				ElementType: types.StringType, Optional: true, Computed: true,
				PlanModifiers: []planmodifier.List{listplanmodifier.RequiresReplaceIfConfigured(), listplanmodifier.UseStateForUnknown()},
				Validators:    []validator.List{PartitionIDsValidator(path.MatchRoot("topology"))},
				MarkdownDescription: "IDs of the partitions. A super-slice lists exactly `A·B·C/64` unique 4x4x4 partitions: the `partition_id` of " +
					"`gke_subblock_node_pool`s, or `ids` of `gke_partitions`. A sub-slice lists one partition of its own shape: an ID from `gke_partitions` " +
					"with `shape` set to the topology. Set it, or `partition_selector`; when selected, it shows the choice, which is kept until the slice is replaced.",
			},
			"retry_on_failure": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Sets the `slice.gke.io/retry-on-failure: \"true\"` annotation: after `SliceCreationFailed`, the controller retries until the slice forms, and create keeps waiting (up to its timeout). Changed in place.",
			},
			"allow_degraded": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Whether `ACTIVE_DEGRADED` (usable, with degraded sub-blocks) counts as ready. Without it, create fails when the slice forms degraded. Changed in place.",
			},
			"force_remove_finalizer": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "When deleting takes longer than the delete timeout, remove the slice controller's finalizer (GKE's documented procedure for a stuck slice), with a warning. Default `false`: the delete fails instead.",
			},
			"state":            schema.StringAttribute{Computed: true, MarkdownDescription: "State of the slice, the `Ready` condition's reason: `SliceNotCreated`, `SliceCreationFailed`, `ACTIVATING`, `ACTIVE`, `ACTIVE_DEGRADED`, `FAILED`, `DEACTIVATING`, `INCOMPLETE`. Refreshed on every plan; a degraded or failed slice gives a warning."},
			"message":          schema.StringAttribute{Computed: true, MarkdownDescription: "The `Ready` condition's message."},
			"ready":            schema.BoolAttribute{Computed: true, MarkdownDescription: "The `Ready` condition's status: true for `ACTIVE` and `ACTIVE_DEGRADED`."},
			"chips":            schema.Int64Attribute{Computed: true, MarkdownDescription: "Chips in the slice: `A·B·C`."},
			"hosts":            schema.Int64Attribute{Computed: true, MarkdownDescription: "Hosts (nodes, one pod each) in the slice: `A·B·C/4`; a Job's `parallelism` and `completions`."},
			"accelerator_type": schema.StringAttribute{Computed: true, MarkdownDescription: "`TPU_ACCELERATOR_TYPE` of a workload on the slice: `tpu7x-<A·B·C·2>`."},
			"node_selector": schema.MapAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Node selector that pins a pod to this slice: accelerator, topology and slice name.",
			},
			"pod_annotations": schema.MapAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Annotations a pod on the slice carries (`cloud.google.com/gke-tpu-slice-topology`).",
			},
			"device_access": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(string(engine.DevicePlugin)),
				Validators: []validator.String{stringvalidator.OneOf(deviceAccessValues()...)},
				MarkdownDescription: "How the workload's pods reach the chips of their hosts: `device_plugin` (the default: each pod requests `google.com/tpu: 4`, " +
					"`tpu_resources`) or `dra` (GKE's TPU DRA driver: each pod claims every chip of its host through a ResourceClaim made from " +
					"`resource_claim_template`, referenced by `pod_resource_claims`). A node is on one or the other: `dra` needs node pools " +
					"with `node_labels = { \"cloud.google.com/gke-tpu-dra-driver\" = \"true\" }`, which have no `google.com/tpu` capacity. Listed partitions on " +
					"nodes of the other kind are refused at plan (when their nodes exist) and at create, before a Slice is made; `partition_selector` " +
					"chooses only partitions whose nodes match. Changed in place (the Slice is the same; only the wiring changes). See the DRA guide.",
			},
			"tpu_resources": schema.MapAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Container `resources.requests` and `limits` of a pod on the slice: `{\"google.com/tpu\" = \"4\"}` for `device_plugin`, empty for `dra`.",
			},
			"resource_claim_template": schema.StringAttribute{
				Computed: true,
				MarkdownDescription: "For `dra`: the ResourceClaimTemplate to create in the workload's namespace, as a JSON manifest (`jsondecode` it, or " +
					"`kubectl apply -f`): named `<name>-tpu`, one request `tpu` of DeviceClass `tpu.google.com` with `allocationMode: All` (the driver " +
					"cannot give part of a host). Null for `device_plugin`.",
			},
			"pod_resource_claims": schema.ListAttribute{
				ElementType: types.MapType{ElemType: types.StringType}, Computed: true,
				MarkdownDescription: "For `dra`: a pod's `spec.resourceClaims`, `[{name = \"tpu\", resourceClaimTemplateName = \"<name>-tpu\"}]`; each container that " +
					"uses the chips lists the claim in `resources.claims` (`[{ name = \"tpu\" }]`). Empty for `device_plugin`.",
			},
			"conditions": schema.ListAttribute{
				ElementType: conditionType, Computed: true,
				MarkdownDescription: "The Slice's status conditions: `type`, `status`, `reason`, `message`.",
			},
		},
		Blocks: map[string]schema.Block{
			"partition_selector": schema.SingleNestedBlock{
				MarkdownDescription: "Select the partitions instead of listing them: usable partitions of the topology's partition shape (`HEALTHY`, then " +
					"`DEGRADED` when allowed; every node Ready; held by no other slice, directly or through an overlapping partition), all in one block, the " +
					"healthiest first, deterministically. A sub-slice is packed best-fit: into the sub-block with the fewest free hosts that has room, so " +
					"that whole sub-blocks stay free for super-slices. The choice is made at apply (slices of one apply never " +
					"share partitions) and kept in `partition_ids`. When it cannot be satisfied, the create fails saying how many usable partitions each " +
					"block has (at once when every pool of the selection is created with its nodes registered; otherwise after waiting briefly for " +
					"pools of the same apply); a plan warns of it already when the pools exist (a warning, not an error, so that `terraform destroy` is never blocked by a " +
					"slice that cannot be made). Changing the selector, or adding one to a slice that has none (an imported slice, or one that listed its " +
					"partitions), keeps the slice while its partitions are inside the new selector's pools, policy and block (the apply records it); " +
					"otherwise the slice is replaced, to choose again.",
				Attributes: map[string]schema.Attribute{
					"node_pools": schema.ListAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: "Only partitions of these node pools, for example `[for p in gke_subblock_node_pool.pool : p.name]`."},
					"workload_policy": schema.StringAttribute{
						Optional: true,
						MarkdownDescription: "Only partitions of the node pools that this workload policy places (their `workload_policy`, by name or self link): the pools of one " +
							"slice stack, without listing them, for example `gke_workload_policy.this.name`. With `node_pools` too, only those of them. The pools are " +
							"found in the cluster's node pool list, which the plan reads once for all slices; a slice in the same configuration as its pools " +
							"should have `depends_on` on them, so that it is created after them. A long `node_pools` list costs every plan time: each slice " +
							"carries it in its configuration, plan and state.",
					},
					"block":          schema.StringAttribute{Optional: true, MarkdownDescription: "Only partitions in this block: a reservation block name as the node pools target it (`block-a`, or `reservation/block-a` when two reservations have a block of that name), or the physical block ID (`cloud.google.com/gce-topology-block` node label)."},
					"allow_degraded": schema.BoolAttribute{Optional: true, MarkdownDescription: "Let `DEGRADED` partitions in, after the `HEALTHY` ones. Default `false`."},
				},
			},
			"timeouts": timeoutsBlock(ctx, timeouts.Opts{Create: true, Update: true, Delete: true, CreateDescription: "Default 30m.", UpdateDescription: "Default 5m.", DeleteDescription: "Default 30m."}),
		},
	}
}

// ValidateConfig requires exactly one way of naming the partitions.
func (r *tpuSliceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var ids types.List
	var selector types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("partition_ids"), &ids)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("partition_selector"), &selector)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var pools types.List
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("partition_selector").AtName("node_pools"), &pools)...)
	if !pools.IsNull() && !pools.IsUnknown() {
		names := make([]string, 0, len(pools.Elements()))
		for range pools.Elements() {
			names = append(names, "")
		}
		if err := (engine.PartitionSelector{NodePools: names}).Check(); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("partition_selector").AtName("node_pools"), "No Node Pools to Select From", err.Error())
		}
	}
	switch hasIDs, hasSelector := !ids.IsNull(), !selector.IsNull(); {
	case hasIDs && hasSelector:
		resp.Diagnostics.AddAttributeError(path.Root("partition_selector"), "Partitions Given Twice",
			"set partition_ids (the partitions to join) or a partition_selector block (to choose them from node pools), not both")
	case !hasIDs && !hasSelector && !ids.IsUnknown():
		resp.Diagnostics.AddAttributeError(path.Root("partition_ids"), "No Partitions",
			"a slice needs its partitions: set partition_ids (for example the partition_id of gke_subblock_node_pool resources), "+
				"or a partition_selector block to choose them from node pools")
	}
}

// IdentitySchema implements resource.ResourceWithIdentity.
func (r *tpuSliceResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = clusterObjectIdentitySchema("Name of the Slice.")
}

func (r *tpuSliceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	set, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.clients = set
}

// derive fills the values that follow from the topology and name.
func (m *tpuSliceModel) derive() {
	if m.Topology.IsUnknown() || m.Name.IsUnknown() {
		return
	}
	shape, err := engine.ShapeOf(m.Name.ValueString(), m.Topology.ValueString())
	if err != nil {
		return
	}
	m.Chips, m.Hosts, m.AcceleratorType = types.Int64Value(int64(shape.Chips)), types.Int64Value(int64(shape.Hosts)), types.StringValue(shape.AcceleratorType)
	m.NodeSelector = stringMap(shape.NodeSelector)
	m.PodAnnotations = stringMap(shape.PodAnnotations)
	if m.DeviceAccess.IsUnknown() {
		m.TPUResources = types.MapUnknown(types.StringType)
		m.ClaimTemplate = types.StringUnknown()
		m.PodResourceClaims = types.ListUnknown(types.MapType{ElemType: types.StringType})
		return
	}
	w := engine.WiringOf(m.Name.ValueString(), m.access())
	m.TPUResources = stringMap(w.TPUResources)
	m.ClaimTemplate = types.StringNull()
	if w.ClaimTemplate != "" {
		m.ClaimTemplate = types.StringValue(w.ClaimTemplate)
	}
	claims := make([]attr.Value, len(w.PodResourceClaims))
	for i, c := range w.PodResourceClaims {
		claims[i] = stringMap(c)
	}
	m.PodResourceClaims = types.ListValueMust(types.MapType{ElemType: types.StringType}, claims)
}

// access is the slice's device access (the default when null).
func (m *tpuSliceModel) access() engine.DeviceAccess {
	return engine.DeviceAccess(m.DeviceAccess.ValueString())
}

func deviceAccessValues() []string {
	out := make([]string, len(engine.DeviceAccesses))
	for i, a := range engine.DeviceAccesses {
		out[i] = string(a)
	}
	return out
}

func stringMap(in map[string]string) types.Map {
	vals := map[string]attr.Value{}
	for k, v := range in {
		vals[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, vals)
}

// replaceBroken plans the replacement of a slice that cannot recover in
// place: FAILED (the controller does not re-form it) or being deleted. A
// selector chooses the partitions again.
func (r *tpuSliceResource) replaceBroken(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m *tpuSliceModel) {
	var id types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	e, err := r.clients.Engine()
	if err != nil || id.IsNull() {
		return
	}
	verdict := e.CheckExistingSlice(ctx, id.ValueString())
	if !verdict.Replace {
		return
	}
	tflog.Info(ctx, "Planning the replacement of a broken slice", map[string]any{"slice": id.ValueString(), "why": verdict.Why})
	m.State, m.Message, m.Ready, m.Conditions = types.StringUnknown(), types.StringUnknown(), types.BoolUnknown(), types.ListUnknown(conditionType)
	if m.PartitionSelector != nil {
		m.PartitionIDs = types.ListUnknown(types.StringType)
	}
	resp.RequiresReplace = append(resp.RequiresReplace, path.Root("state"))
	resp.Diagnostics.AddWarning("Slice Will Be Replaced", verdict.Why+": it cannot recover in place, so this plan replaces it (delete, then create).")
}

// planSelector decides what a partition_selector that differs from the
// state's does to an existing slice. The slice is kept while its
// partitions satisfy the new selector: they stand for its choice, and the
// apply only records it. That covers a selector where the state has none
// (after an import, or when the configuration moves from listing
// partitions to selecting them) and a selector rewritten to one that
// still holds (node_pools replaced by the workload_policy that places the
// same pools, say). Otherwise the slice is replaced, to choose again.
func (r *tpuSliceResource) planSelector(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m *tpuSliceModel) {
	var prior, planned types.Object
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("partition_selector"), &prior)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("partition_selector"), &planned)...)
	if resp.Diagnostics.HasError() || planned.Equal(prior) || planned.IsNull() {
		// Unchanged, or back to listed partitions, which partition_ids
		// judges.
		return
	}
	replace := func(warning string) {
		m.State, m.Message, m.Ready, m.Conditions = types.StringUnknown(), types.StringUnknown(), types.BoolUnknown(), types.ListUnknown(conditionType)
		m.PartitionIDs = types.ListUnknown(types.StringType)
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("partition_selector"))
		if warning != "" {
			resp.Diagnostics.AddAttributeWarning(path.Root("partition_selector"), "Slice Will Be Replaced", warning)
		}
	}
	var ids []string
	resp.Diagnostics.Append(m.PartitionIDs.ElementsAs(ctx, &ids, false)...)
	sel, known := m.selector()
	e, err := r.clients.Engine()
	if resp.Diagnostics.HasError() || !known || sel == nil || err != nil || m.Topology.IsUnknown() {
		if !prior.IsNull() {
			replace("") // another selector, not checkable now: it chooses again
			return
		}
		resp.Diagnostics.AddAttributeWarning(path.Root("partition_selector"), "Partition Selector Not Checked",
			"The slice's partitions cannot be checked against partition_selector yet (some of its values are known only after apply, "+
				"or the provider's configuration is not): the slice is kept, and this apply records the selector.")
		return
	}
	sel.Cluster, _ = r.clients.Config().ClusterName()
	check := e.CheckSelectorHolds(ctx, m.Name.ValueString(), m.Topology.ValueString(), *sel, ids)
	switch {
	case check.Verdict == engine.SelectorHolds:
		tflog.Info(ctx, "The slice's partitions satisfy its partition selector; recording the selector", map[string]any{"slice": m.Name.ValueString()})
	case check.Verdict == engine.SelectorUnknown && prior.IsNull():
		resp.Diagnostics.AddAttributeWarning(path.Root("partition_selector"), "Partition Selector Not Checked",
			fmt.Sprintf("The partitions of slice %s cannot be checked against partition_selector now (%s): the slice is kept, and this "+
				"apply records the selector. Plan again once the cluster can be read to check them.", m.Name.ValueString(), check.Reason))
	case check.Verdict == engine.SelectorUnknown:
		replace(fmt.Sprintf("partition_selector of slice %s changed, and its partitions cannot be checked against the new one now (%s), "+
			"so this plan replaces the slice to choose them again. Plan again once the cluster can be read to keep it.", m.Name.ValueString(), check.Reason))
	default:
		replace(fmt.Sprintf("The partitions of slice %s do not satisfy partition_selector (%s), so this plan replaces the slice to choose "+
			"them again. To keep it, widen the selector or list its partitions in partition_ids.", m.Name.ValueString(), check.Reason))
	}
}

// planResume plans an update of a slice that is still forming (its create
// was interrupted): the apply waits for it (Update), the slice stays.
func planResume(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m *tpuSliceModel) {
	// The three attributes it needs, not the whole state: a plan of many
	// slices decodes each state once less.
	var state tpuSliceModel
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &state.ID)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("state"), &state.State)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("retry_on_failure"), &state.RetryOnFailure)...)
	if resp.Diagnostics.HasError() || !state.forming() || len(resp.RequiresReplace) > 0 {
		return
	}
	m.State, m.Message, m.Ready, m.Conditions = types.StringUnknown(), types.StringUnknown(), types.BoolUnknown(), types.ListUnknown(conditionType)
	resp.Diagnostics.AddWarning("Slice Not Ready", fmt.Sprintf(
		"Slice %s is not ACTIVE yet (%s; its create was interrupted): this apply waits for it, within the create timeout.",
		state.ID.ValueString(), orNotReported(state.State.ValueString())))
}

// forming says whether the slice in the state is still forming: the
// apply waits for it.
func (m tpuSliceModel) forming() bool {
	return !m.State.IsUnknown() && engine.SliceProgress(m.State.ValueString(), m.RetryOnFailure.ValueBool()).Waiting
}

// selector is the partition selector, when every part of it is known.
func (m tpuSliceModel) selector() (*engine.PartitionSelector, bool) {
	sel := m.PartitionSelector
	if sel == nil {
		return nil, true
	}
	if sel.NodePools.IsUnknown() || sel.WorkloadPolicy.IsUnknown() || sel.Block.IsUnknown() || sel.AllowDegraded.IsUnknown() {
		return nil, false
	}
	out := &engine.PartitionSelector{Block: sel.Block.ValueString(), WorkloadPolicy: sel.WorkloadPolicy.ValueString(), AllowDegraded: sel.AllowDegraded.ValueBool()}
	if !sel.NodePools.IsNull() {
		// Set, even to an empty list: the engine refuses an empty one
		// rather than take it for every pool.
		out.NodePools = []string{}
	}
	for _, v := range sel.NodePools.Elements() {
		s, ok := v.(types.String)
		if !ok || s.IsUnknown() {
			return nil, false
		}
		out.NodePools = append(out.NodePools, s.ValueString())
	}
	return out, true
}

// ModifyPlan derives the workload wiring from the topology and, for a new
// slice with a selector, reports a selection that the existing pools
// cannot meet. The choice itself is made at apply.
func (r *tpuSliceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var m tpuSliceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	planned := m
	m.derive()
	if !req.State.Raw.IsNull() && r.clients != nil {
		r.replaceBroken(ctx, req, resp, &m)
		if len(resp.RequiresReplace) == 0 {
			r.planSelector(ctx, req, resp, &m)
		}
		planResume(ctx, req, resp, &m)
		r.planAccessChange(ctx, req, resp, m)
	}
	if req.State.Raw.IsNull() && r.clients != nil {
		r.checkNewSlice(ctx, resp, m)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	r.warnMaintenance(ctx, resp, m)
	if reflect.DeepEqual(m, planned) {
		return // nothing changed: the plan stands as Terraform proposed it (most plans of an existing slice)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, m)...)
}

// planAccessChange refuses, at plan, a device_access changed to one that
// the slice's partitions' nodes do not offer.
func (r *tpuSliceResource) planAccessChange(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m tpuSliceModel) {
	var was types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("device_access"), &was)...)
	if m.DeviceAccess.IsUnknown() || m.DeviceAccess.Equal(was) || m.PartitionIDs.IsUnknown() || m.Topology.IsUnknown() {
		return
	}
	e, err := r.clients.Engine()
	if err != nil {
		return
	}
	var ids []string
	if diags := m.PartitionIDs.ElementsAs(ctx, &ids, false); diags.HasError() {
		return
	}
	var mismatch *engine.DeviceAccessError
	if err := e.CheckDeviceAccess(ctx, m.Topology.ValueString(), ids, m.access()); errors.As(err, &mismatch) {
		resp.Diagnostics.Append(sliceDiagnostics(atPlan, sliceAccessMismatch, err)...)
	}
}

// checkNewSlice warns at plan of what is known to stop a new slice: a
// cluster whose Kubernetes API cannot be read (wrong CA, credentials,
// permissions, no Slice API), and a selection the existing pools cannot
// meet. Warnings, not errors: terraform destroy plans the configuration
// first (its pre-destroy refresh), and a slice that cannot be created must
// not stop the destroy of the rest. The create fails with the same cause.
func (r *tpuSliceResource) checkNewSlice(ctx context.Context, resp *resource.ModifyPlanResponse, m tpuSliceModel) {
	e, err := r.clients.Engine()
	if err != nil {
		return // the provider's configuration is not known yet
	}
	p := engine.NewSlicePlan{}
	p.Cluster, _ = r.clients.Config().ClusterName()
	if !m.Name.IsUnknown() {
		p.Name = m.Name.ValueString()
	}
	if !m.Topology.IsUnknown() {
		p.Topology = m.Topology.ValueString()
	}
	if !m.PartitionIDs.IsUnknown() {
		ids := []string{}
		if diags := m.PartitionIDs.ElementsAs(ctx, &ids, false); !diags.HasError() {
			p.PartitionIDs = ids
		}
	} else if sel, known := m.selector(); known {
		p.Selector = sel
	}
	if m.DeviceAccess.IsUnknown() {
		p.PartitionIDs = nil // the access is checked at apply
	}
	p.DeviceAccess = m.access()
	verdict := e.PlanNewSlice(ctx, p)
	resp.Diagnostics.Append(sliceDiagnostics(atPlan, verdictFailure(verdict.Problem), verdict.Err)...)
}

func idsList(ids []string) types.List {
	vals := make([]attr.Value, len(ids))
	for i, id := range ids {
		vals[i] = types.StringValue(id)
	}
	return types.ListValueMust(types.StringType, vals)
}

func (r *tpuSliceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	c := begin[tpuSliceModel](ctx, r.clients, req.Plan, &resp.Diagnostics, opCreate, defaultSliceCreateTimeout)
	if c == nil {
		return
	}
	defer c.done()
	m := c.Model
	cluster, _ := r.clients.Config().ClusterName()
	sreq := engine.SliceRequest{
		Name: m.Name.ValueString(), Type: m.Type.ValueString(), Topology: m.Topology.ValueString(), Cluster: cluster,
		RetryOnFailure: m.RetryOnFailure.ValueBool(), AllowDegraded: m.AllowDegraded.ValueBool(), DeviceAccess: m.access(),
	}
	if !m.PartitionIDs.IsUnknown() {
		resp.Diagnostics.Append(m.PartitionIDs.ElementsAs(ctx, &sreq.PartitionIDs, false)...)
	} else if sel, known := m.selector(); known {
		if sel != nil {
			// The cluster's node pools resolve a reservation block name.
			sel.Cluster = cluster
		}
		sreq.Selector = sel
	}
	if resp.Diagnostics.HasError() {
		return
	}
	s, err := c.Engine.CreateSlice(c.Ctx, sreq, func(ids []string) {
		// Recorded before the wait: a failure or timeout leaves the
		// slice in the state (tainted), so the next apply replaces it; an
		// interrupt leaves it untainted (recordInterruptedCreate).
		m.ID, m.PartitionIDs = types.StringValue(sreq.Name), idsList(ids)
		m.State, m.Message, m.Ready = types.StringValue(""), types.StringValue(""), types.BoolValue(false)
		m.Conditions = types.ListValueMust(conditionType, nil)
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
		setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, r.clients, nil, sreq.Name), &resp.Diagnostics)
	})
	if f := applyFailure(err); f != sliceFine && f != sliceNotReady {
		// Refused before the slice was made.
		resp.Diagnostics.Append(sliceDiagnostics(atApply, f, err)...)
		return
	}
	if s != nil {
		m.setStatus(s)
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
		if s.Adopted != "" {
			resp.Diagnostics.AddWarning("Existing Slice Adopted", s.Adopted)
		}
	}
	if err != nil && !m.ID.IsUnknown() && interrupted(ctx) && r.recordInterruptedCreate(ctx, c.Engine, m, resp) {
		return
	}
	if err != nil {
		resp.Diagnostics.Append(sliceDiagnostics(atApply, sliceNotReady, err)...)
	}
}

// recordInterruptedCreate records a slice whose create was interrupted
// (Ctrl-C) while it formed, by the interrupted-create protocol: as it is
// now, not tainted, so that the next apply waits for it (see ModifyPlan)
// instead of recreating it. It says whether it did.
func (r *tpuSliceResource) recordInterruptedCreate(ctx context.Context, e *engine.Engine, m tpuSliceModel, resp *resource.CreateResponse) bool {
	return recordInterrupted(ctx, "Slice", m.ID.ValueString(), func(rctx context.Context) (engine.Progress, error) {
		s, err := e.ReadSlice(rctx, m.ID.ValueString())
		if err != nil {
			return engine.Progress{}, err
		}
		progress := engine.SliceProgress(s.State, s.RetryOnFailure)
		if s.Deleting {
			progress.CanFinish = false
		}
		if progress.CanFinish {
			m.setStatus(s)
			resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
		}
		return progress, nil
	}, &resp.Diagnostics)
}

func orNotReported(state string) string {
	if state == "" {
		return "state not yet reported by the slice controller"
	}
	return state
}

func (m *tpuSliceModel) setStatus(s *engine.Slice) {
	m.State, m.Message, m.Ready = types.StringValue(s.State), types.StringValue(s.Message), types.BoolValue(s.Ready)
	conds := make([]attr.Value, 0, len(s.Conditions))
	for _, c := range s.Conditions {
		conds = append(conds, types.ObjectValueMust(conditionType.AttrTypes, map[string]attr.Value{
			"type": types.StringValue(c.Type), "status": types.StringValue(c.Status), "reason": types.StringValue(c.Reason), "message": types.StringValue(c.Message),
		}))
	}
	m.Conditions = types.ListValueMust(conditionType, conds)
}

func (r *tpuSliceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	c := begin[tpuSliceModel](ctx, r.clients, req.State, &resp.Diagnostics, opNone, 0)
	if c == nil {
		return
	}
	m := c.Model
	s, err := c.Engine.ReadSlice(ctx, m.ID.ValueString())
	if errors.Is(err, engine.ErrNotFound) {
		// Terraform shows it in the plan as a create: no warning needed.
		tflog.Info(ctx, "Slice gone; removing it from the state", map[string]any{"slice": m.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, r.clients, req.Identity, m.ID.ValueString()), &resp.Diagnostics) // the framework wants one even so
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot Read Slice", err.Error())
		return
	}
	if s.KueueWorkload != "" {
		// Ours is gone and Kueue made one of the same name: not ours.
		resp.Diagnostics.AddWarning("Slice Now Owned by Kueue", kueueOwnedWarning(s))
		resp.State.RemoveResource(ctx)
		setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, r.clients, req.Identity, s.Name), &resp.Diagnostics)
		return
	}
	m.Name, m.Type, m.Topology = types.StringValue(s.Name), types.StringValue(s.Type), types.StringValue(s.Topology)
	m.PartitionIDs = idsList(s.PartitionIDs)
	m.RetryOnFailure = types.BoolValue(s.RetryOnFailure)
	for _, b := range []*types.Bool{&m.AllowDegraded, &m.ForceRemoveFinalizer} {
		if b.IsNull() || b.IsUnknown() {
			*b = types.BoolValue(false)
		}
	}
	if m.DeviceAccess.IsNull() || m.DeviceAccess.IsUnknown() {
		// Imported: the access the partitions' nodes offer.
		m.DeviceAccess = types.StringValue(string(c.Engine.AccessOf(ctx, s.Topology, s.PartitionIDs)))
	}
	m.setStatus(s)
	m.derive()
	if m.Timeouts.IsNull() {
		m.Timeouts = timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType})}
	}
	switch s.State {
	case engine.SliceActiveDegraded, engine.SliceFailed, engine.SliceCreationFailed:
		resp.Diagnostics.AddWarning("Slice Not Healthy", fmt.Sprintf("Slice %s is %s: %s", s.Name, s.State, s.Message))
	}
	setRefreshed(ctx, &resp.State, c.Model, m, &resp.Diagnostics)
	setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, r.clients, req.Identity, s.Name), &resp.Diagnostics)
}

// Update changes what can change in place: the retry-on-failure
// annotation, and the provider-side settings. A slice whose create was
// interrupted is first waited for, within the create timeout; the update's
// own timeout starts after that wait, so that the wait cannot use it up.
func (r *tpuSliceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var state tpuSliceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Set even when Terraform keeps none (before 1.12): the framework wants one.
	setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, r.clients, req.Identity, state.ID.ValueString()), &resp.Diagnostics)
	if state.forming() {
		wait := begin[tpuSliceModel](ctx, r.clients, req.Plan, &resp.Diagnostics, opCreate, defaultSliceCreateTimeout)
		if wait == nil {
			return
		}
		plan := wait.Model
		s, err := wait.Engine.ResumeSlice(wait.Ctx, state.ID.ValueString(), plan.AllowDegraded.ValueBool(), plan.RetryOnFailure.ValueBool())
		wait.done()
		if s != nil {
			state.setStatus(s)
			resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
		}
		if err != nil {
			resp.Diagnostics.Append(sliceDiagnostics(atApply, sliceNotReady, err)...)
			return
		}
	}
	c := begin[tpuSliceModel](ctx, r.clients, req.Plan, &resp.Diagnostics, opUpdate, defaultSliceUpdateTimeout)
	if c == nil {
		return
	}
	defer c.done()
	plan := c.Model
	if !plan.DeviceAccess.Equal(state.DeviceAccess) {
		var ids []string
		resp.Diagnostics.Append(state.PartitionIDs.ElementsAs(ctx, &ids, false)...)
		if err := c.Engine.CheckDeviceAccess(c.Ctx, state.Topology.ValueString(), ids, plan.access()); err != nil {
			resp.Diagnostics.Append(sliceDiagnostics(atApply, sliceAccessMismatch, err)...)
		}
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if !plan.RetryOnFailure.Equal(state.RetryOnFailure) {
		if err := c.Engine.SetRetryOnFailure(c.Ctx, state.ID.ValueString(), plan.RetryOnFailure.ValueBool()); err != nil {
			resp.Diagnostics.AddError("Cannot Update Slice", err.Error())
			return
		}
	}
	state.RetryOnFailure, state.AllowDegraded, state.ForceRemoveFinalizer, state.Timeouts = plan.RetryOnFailure, plan.AllowDegraded, plan.ForceRemoveFinalizer, plan.Timeouts
	state.DeviceAccess = plan.DeviceAccess
	state.derive()
	// A selector recorded for partitions that satisfy it (planSelector).
	state.PartitionSelector = plan.PartitionSelector
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *tpuSliceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	c := begin[tpuSliceModel](ctx, r.clients, req.State, &resp.Diagnostics, opDelete, defaultSliceDeleteTimeout)
	if c == nil {
		return
	}
	defer c.done()
	deleted, err := c.Engine.DeleteSlice(c.Ctx, c.Model.ID.ValueString(), c.Model.ForceRemoveFinalizer.ValueBool())
	if err != nil {
		resp.Diagnostics.AddError("Cannot Delete Slice", err.Error())
	}
	switch {
	case deleted.KueueWorkload != "":
		resp.Diagnostics.AddWarning("Slice Owned by Kueue Left in Place", deleted.Message)
	case deleted.FinalizerRemoved:
		resp.Diagnostics.AddWarning("Slice Finalizer Removed", deleted.Message)
	}
}

// ImportState takes the slice name, or an identity.
func (r *tpuSliceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID == "" {
		var ok bool
		if req.ID, ok = nameFromIdentity(ctx, r.clients, req, resp); !ok {
			return
		}
	}
	if !sliceNameRE.MatchString(req.ID) {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("%q is not a Slice name (a DNS label)", req.ID))
		return
	}
	if e, err := r.clients.Engine(); err == nil {
		if s, err := e.ReadSlice(ctx, req.ID); err == nil && s.KueueWorkload != "" {
			resp.Diagnostics.AddError("Cannot Import a Slice Kueue Manages", engine.KueueOwnedError(s).Error())
			return
		}
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}

func (m tpuSliceModel) timeoutsValue() timeouts.Value { return m.Timeouts }

// kueueOwnedWarning says that a Slice in the state turned out to be one
// Kueue made, and is dropped from the state without being touched.
func kueueOwnedWarning(s *engine.Slice) string {
	return fmt.Sprintf("Slice %s is now one that Kueue's slice admission check created for workload %s: the Slice this resource "+
		"made is gone. It is removed from the state and left alone; the next apply creates this slice again and fails while Kueue's "+
		"Slice holds the name, so rename this resource's slice.", s.Name, s.KueueWorkload)
}
