package provider

import (
	"context"
	"regexp"
	"slices"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
)

var (
	_ resource.Resource                = (*kueueSlicingResource)(nil)
	_ resource.ResourceWithConfigure   = (*kueueSlicingResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*kueueSlicingResource)(nil)
	_ resource.ResourceWithImportState = (*kueueSlicingResource)(nil)
	_ resource.ResourceWithIdentity    = (*kueueSlicingResource)(nil)
)

const defaultKueueTimeout = 5 * time.Minute

// dnsLabelRE is a Kubernetes object or namespace name that is a DNS label.
var dnsLabelRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// NewKueueSlicingResource returns gke_kueue_slicing.
func NewKueueSlicingResource() resource.Resource { return &kueueSlicingResource{} }

type kueueSlicingResource struct{ provider *configured }

type kueueSlicingModel struct {
	ID             types.String `tfsdk:"id"`
	Name           types.String `tfsdk:"name"`
	NodePools      types.List   `tfsdk:"node_pools"`
	Namespaces     types.Set    `tfsdk:"namespaces"`
	SubSlicing     types.Bool   `tfsdk:"sub_slicing"`
	TPUQuota       types.Int64  `tfsdk:"tpu_quota"`
	TopologyLevels types.List   `tfsdk:"topology_levels"`
	QueueLabels    types.Map    `tfsdk:"queue_labels"`
	InSync         types.Bool   `tfsdk:"in_sync"`
	// WorkloadTopologies are the topologies the queue's workloads will
	// ask for: checked, never applied.
	WorkloadTopologies types.List     `tfsdk:"workload_topologies"`
	Overflow           types.Object   `tfsdk:"overflow"`
	Timeouts           timeouts.Value `tfsdk:"timeouts"`
}

func (m kueueSlicingModel) timeoutsValue() timeouts.Value { return m.Timeouts }

func (r *kueueSlicingResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kueue_slicing"
}

func (r *kueueSlicingResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The Kueue objects that the **Kueue + Topology Aware Scheduling** path of dynamic slicing needs, kept in sync by " +
			"server-side apply (`kueue.x-k8s.io/v1beta2`, Kueue v0.15 or later): a `Topology` (block, 4x4x4 partition, the sub-slice " +
			"partitions when `sub_slicing`, host), a `ResourceFlavor` for tpu7x nodes on that topology (tolerating GKE's TPU taint " +
			"`google.com/tpu=present:NoSchedule`, which Topology Aware Scheduling would otherwise hold against the nodes), the `AdmissionCheck` of GKE's slice " +
			"controller (`accelerator.gke.io/slice`, which creates a Slice for each admitted workload), a `ClusterQueue` whose `google.com/tpu` " +
			"quota is the chips of `node_pools`, and a `LocalQueue` in each of `namespaces`. Every object is named `name`. A change made " +
			"outside Terraform shows in the plan (`in_sync`); delete goes in dependency order, LocalQueues first. Slices that Kueue creates " +
			"are never adopted, changed or deleted by `gke_tpu_slice`; `gke_partitions` and selection count them as holding their partitions. " +
			"Import takes the name and reads the objects back: `node_pools` from the ClusterQueue's `" + kueue.AnnotationKueueNodePools + "` annotation " +
			"(set by every apply), the quota, `sub_slicing` from the Topology, and `namespaces` from the LocalQueues of that name.\n\n" +
			"**Checks.** A set-up Kueue cannot use fails at plan where the provider can tell, else at apply before any object is applied: " +
			"Kueue not installed, or older than v0.15 (the cluster must serve `kueue.x-k8s.io/v1beta2` with " + quoted(kueue.KueueResources) + "); " +
			"a node pool of `node_pools` with no nodes, or whose nodes lack the ResourceFlavor's label `cloud.google.com/gke-tpu-accelerator=tpu7x` " +
			"or a label of the Topology's levels (`topology_levels`); a namespace that does not exist; a `workload_topologies` entry the pools " +
			"cannot hold. At plan, what is not known yet is not checked: pools made by the same apply, values known only after apply; Terraform " +
			"plans the resource again during the apply, once they are known, and the checks run then. A plan " +
			"whose cluster cannot be read warns instead (`Cannot Read the Cluster`), as for `gke_tpu_slice`. When the configuration of an existing " +
			"resource has not changed and the cluster changed under it (a namespace deleted, Kueue removed), the plan warns instead of failing, " +
			"so that a refresh and `terraform destroy` of the rest go on; the next apply of these objects fails with the same message. " +
			"A plan error of a resource that is not in the state also stops `terraform destroy` (which plans the configuration first): " +
			"fix the configuration, remove the resource from it, or run `terraform destroy -refresh=false`.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{Computed: true, PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
				MarkdownDescription: "The name; the import ID."},
			"name": schema.StringAttribute{
				Required: true, PlanModifiers: []planmodifier.String{stringplanmodifier.RequiresReplace()},
				Validators: []validator.String{stringvalidator.LengthBetween(1, 63),
					stringvalidator.RegexMatches(dnsLabelRE, "must be a DNS label: lower-case letters, digits and hyphens, starting and ending with a letter or digit")},
				MarkdownDescription: "Name of the Topology, ResourceFlavor, AdmissionCheck, ClusterQueue and LocalQueues; workloads name the LocalQueue in their `kueue.x-k8s.io/queue-name` label (`queue_labels`). Changing it replaces them all.",
			},
			"node_pools": schema.ListAttribute{
				ElementType: types.StringType, Required: true,
				Validators:          []validator.List{listvalidator.SizeAtLeast(1), listvalidator.UniqueValues()},
				MarkdownDescription: "The sub-block node pools whose chips make the ClusterQueue's `google.com/tpu` quota (4 per node), for example `[for p in gke_subblock_node_pool.pool : p.name]`. The quota follows the list.",
			},
			"namespaces": schema.SetAttribute{
				ElementType: types.StringType, Required: true,
				Validators: []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(stringvalidator.LengthAtMost(63),
					stringvalidator.RegexMatches(dnsLabelRE, "must be a namespace name (a DNS label)"))},
				MarkdownDescription: "Namespaces that get a LocalQueue named `name` feeding the ClusterQueue. A namespace removed from the set loses its LocalQueue. " +
					"Each must exist: the plan fails on a known namespace that the cluster does not have, and it cannot see one that another resource " +
					"creates in the same apply (`depends_on` does not change that). Create namespaces in an earlier apply, or write a value known only " +
					"after apply, such as the `id` of the `kubernetes_namespace` that creates each (`namespaces = [kubernetes_namespace.team.id]`): the " +
					"plan then skips it, and Terraform checks it when it plans this resource again during the apply, after the namespace is made.",
			},
			"sub_slicing": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Whether the Topology has the sub-slice partition levels (2x4x4 down to 2x2x1) below the 4x4x4 partition, so that Kueue can place sub-slices (GKE 1.36.0-gke.3712000 or later). Default `true`.",
			},
			"workload_topologies": schema.ListAttribute{
				ElementType: types.StringType, Optional: true,
				Validators: []validator.List{listvalidator.ValueStringsAre(TopologyValidator())},
				MarkdownDescription: "The tpu7x topologies the queue's workloads will ask for (their `cloud.google.com/gke-tpu-slice-topology` annotation), " +
					"for example `[\"4x4x8\", \"2x2x2\"]`. Nothing is applied from it: it guards the set-up, at plan and again at apply. Each must be a " +
					"valid tpu7x topology; a sub-slice (`2x2x1` to `2x4x4`) needs `sub_slicing`; a super-slice of A·B·C/64 partitions needs that many of " +
					"`node_pools`' partitions in one reservation block (the nodes' `cloud.google.com/gce-topology-block` label; a pool not made yet may " +
					"be in any block at plan, and one still provisioning is in its reservation block); and its A·B·C chips must not exceed the " +
					"ClusterQueue's `google.com/tpu` quota (`tpu_quota`; at plan, 64 chips for each pool not made yet). Kueue would never admit a " +
					"workload that breaks one of these.",
			},
			"overflow":        kueueOverflowAttribute(),
			"tpu_quota":       schema.Int64Attribute{Computed: true, MarkdownDescription: "The ClusterQueue's `google.com/tpu` nominal quota: 4 chips per node of `node_pools`."},
			"topology_levels": schema.ListAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "The Topology's levels, from the block to the host."},
			"queue_labels": schema.MapAttribute{ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Labels a workload (Job, JobSet, LeaderWorkerSet) carries to be queued here: `kueue.x-k8s.io/queue-name`."},
			"in_sync": schema.BoolAttribute{Computed: true,
				MarkdownDescription: "Whether the cluster's objects match the configuration; a plan shows `false` (and a warning naming the change) when one was changed or deleted outside Terraform, and the apply restores it."},
		},
		Blocks: map[string]schema.Block{
			"timeouts": timeoutsBlock(ctx, timeouts.Opts{Create: true, Update: true, Delete: true,
				CreateDescription: "Default 5m.", UpdateDescription: "Default 5m.", DeleteDescription: "Default 5m; a ClusterQueue or ResourceFlavor in use by workloads is kept by Kueue until they end."}),
		},
	}
}

func (r *kueueSlicingResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.provider = c
}

// spec is the engine's view of the model, and its namespaces; the quota
// is left to ApplyKueueSlicing (the chips of the node pools).
func (m kueueSlicingModel) spec(ctx context.Context) (kueue.KueueSlicing, []string) {
	var pools, namespaces, topologies []string
	m.NodePools.ElementsAs(ctx, &pools, false)
	m.Namespaces.ElementsAs(ctx, &namespaces, false)
	m.WorkloadTopologies.ElementsAs(ctx, &topologies, false)
	slices.Sort(namespaces)
	return kueue.KueueSlicing{Name: m.Name.ValueString(), SubSlicing: m.SubSlicing.ValueBool(), Namespaces: namespaces, NodePools: pools,
		WorkloadTopologies: topologies, Overflow: m.overflowSpec(ctx)}, namespaces
}

// derive fills the values that follow from the configuration alone.
func (m *kueueSlicingModel) derive(k kueue.KueueSlicing) {
	levels := make([]attr.Value, 0, 8)
	for _, l := range k.TopologyLevels() {
		levels = append(levels, types.StringValue(l))
	}
	m.TopologyLevels = types.ListValueMust(types.StringType, levels)
	m.QueueLabels = stringMap(map[string]string{kueue.LabelQueueName: k.Name})
	m.ID = types.StringValue(k.Name)
}

// IdentitySchema implements resource.ResourceWithIdentity.
func (r *kueueSlicingResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = clusterObjectIdentitySchema("Name of the Kueue objects (the `name` of the resource).")
}
