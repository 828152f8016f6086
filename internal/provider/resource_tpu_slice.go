package provider

import (
	"context"
	"fmt"
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

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
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

type tpuSliceResource struct{ provider *configured }

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
			"differs fails, saying what differs and the `terraform import` command; one that another run is still creating (its record in the " +
			"cluster is fresh) fails, naming that run.",
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
				Optional: true, Computed: true, Default: stringdefault.StaticString(string(clusterread.DevicePlugin)),
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

// IdentitySchema implements resource.ResourceWithIdentity.
func (r *tpuSliceResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = clusterObjectIdentitySchema("Name of the Slice.")
}

func (r *tpuSliceResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.provider = c
}

func (m tpuSliceModel) timeoutsValue() timeouts.Value { return m.Timeouts }
