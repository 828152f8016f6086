package provider

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
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
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine"
)

var (
	_ resource.Resource                = (*kueueSlicingResource)(nil)
	_ resource.ResourceWithConfigure   = (*kueueSlicingResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*kueueSlicingResource)(nil)
	_ resource.ResourceWithImportState = (*kueueSlicingResource)(nil)
)

const defaultKueueTimeout = 5 * time.Minute

// dnsLabelRE is a Kubernetes object or namespace name that is a DNS label.
var dnsLabelRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// NewKueueSlicingResource returns gke_kueue_slicing.
func NewKueueSlicingResource() resource.Resource { return &kueueSlicingResource{} }

type kueueSlicingResource struct{ clients *clients.Set }

type kueueSlicingModel struct {
	ID             types.String   `tfsdk:"id"`
	Name           types.String   `tfsdk:"name"`
	NodePools      types.List     `tfsdk:"node_pools"`
	Namespaces     types.Set      `tfsdk:"namespaces"`
	SubSlicing     types.Bool     `tfsdk:"sub_slicing"`
	TPUQuota       types.Int64    `tfsdk:"tpu_quota"`
	TopologyLevels types.List     `tfsdk:"topology_levels"`
	QueueLabels    types.Map      `tfsdk:"queue_labels"`
	InSync         types.Bool     `tfsdk:"in_sync"`
	Timeouts       timeouts.Value `tfsdk:"timeouts"`
}

func (m kueueSlicingModel) timeoutsValue() timeouts.Value { return m.Timeouts }

func (r *kueueSlicingResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_kueue_slicing"
}

func (r *kueueSlicingResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The Kueue objects that the **Kueue + Topology Aware Scheduling** path of dynamic slicing needs, kept in sync by " +
			"server-side apply (`kueue.x-k8s.io/v1beta2`, Kueue v0.15 or later): a `Topology` (block, 4x4x4 partition, the sub-slice " +
			"partitions when `sub_slicing`, host), a `ResourceFlavor` for tpu7x nodes on that topology, the `AdmissionCheck` of GKE's slice " +
			"controller (`accelerator.gke.io/slice`, which creates a Slice for each admitted workload), a `ClusterQueue` whose `google.com/tpu` " +
			"quota is the chips of `node_pools`, and a `LocalQueue` in each of `namespaces`. Every object is named `name`. A change made " +
			"outside Terraform shows in the plan (`in_sync`); delete goes in dependency order, LocalQueues first. Slices that Kueue creates " +
			"are never adopted, changed or deleted by `gke_tpu_slice`; `gke_partitions` and selection count them as holding their partitions. " +
			"Import takes the name and reads the objects back: `node_pools` from the ClusterQueue's `" + engine.AnnotationKueueNodePools + "` annotation " +
			"(set by every apply), the quota, `sub_slicing` from the Topology, and `namespaces` from the LocalQueues of that name.",
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
				MarkdownDescription: "Namespaces that get a LocalQueue named `name` feeding the ClusterQueue. A namespace removed from the set loses its LocalQueue.",
			},
			"sub_slicing": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Whether the Topology has the sub-slice partition levels (2x4x4 down to 2x2x1) below the 4x4x4 partition, so that Kueue can place sub-slices (GKE 1.36.0-gke.3712000 or later). Default `true`.",
			},
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
	set, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.clients = set
}

// spec is the engine's view of the model; the quota is filled in by
// the caller.
func (m kueueSlicingModel) spec(ctx context.Context) (engine.KueueSlicing, []string, []string) {
	var pools, namespaces []string
	m.NodePools.ElementsAs(ctx, &pools, false)
	m.Namespaces.ElementsAs(ctx, &namespaces, false)
	slices.Sort(namespaces)
	return engine.KueueSlicing{Name: m.Name.ValueString(), SubSlicing: m.SubSlicing.ValueBool(), Namespaces: namespaces, NodePools: pools}, pools, namespaces
}

// derive fills the values that follow from the configuration alone.
func (m *kueueSlicingModel) derive(k engine.KueueSlicing) {
	levels := make([]attr.Value, 0, 8)
	for _, l := range k.TopologyLevels() {
		levels = append(levels, types.StringValue(l))
	}
	m.TopologyLevels = types.ListValueMust(types.StringType, levels)
	m.QueueLabels = stringMap(map[string]string{engine.LabelQueueName: k.Name})
	m.ID = types.StringValue(k.Name)
}

// ModifyPlan derives the levels and the queue label, shows a quota that
// will change with node_pools as unknown, and plans an update when the
// cluster's objects drifted (in_sync false in the state).
func (r *kueueSlicingResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var plan kueueSlicingModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.Name.IsUnknown() || plan.SubSlicing.IsUnknown() {
		return
	}
	k, _, _ := plan.spec(ctx)
	plan.derive(k)
	plan.InSync = types.BoolValue(true)
	if req.State.Raw.IsNull() {
		plan.TPUQuota = types.Int64Unknown()
	} else {
		var state kueueSlicingModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if !plan.NodePools.Equal(state.NodePools) {
			plan.TPUQuota = types.Int64Unknown()
		}
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// apply applies the objects with the quota of the model's node pools, and
// drops the LocalQueues of namespaces no longer listed.
func (r *kueueSlicingResource) apply(ctx context.Context, e *engine.Engine, m *kueueSlicingModel, dropped []string) error {
	k, pools, _ := m.spec(ctx)
	cluster, err := r.clients.Config().ClusterName()
	if err != nil {
		return err
	}
	if k.TPUQuota, err = e.TPUQuota(ctx, cluster, pools); err != nil {
		return err
	}
	if err := e.ApplyKueueSlicing(ctx, k, dropped); err != nil {
		return err
	}
	m.derive(k)
	m.TPUQuota, m.InSync = types.Int64Value(k.TPUQuota), types.BoolValue(true)
	return nil
}

func (r *kueueSlicingResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	c := begin[kueueSlicingModel](ctx, r.clients, req.Plan, &resp.Diagnostics, opCreate, defaultKueueTimeout)
	if c == nil {
		return
	}
	defer c.done()
	m := c.Model
	if err := r.apply(c.Ctx, c.Engine, &m, nil); err != nil {
		// Some objects may exist already: recorded (tainted), so that a
		// destroy or the next apply deals with them.
		k, _, _ := m.spec(ctx)
		m.derive(k)
		m.InSync = types.BoolValue(false)
		if m.TPUQuota.IsUnknown() {
			m.TPUQuota = types.Int64Value(0)
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
		resp.Diagnostics.AddError("Cannot Apply Kueue Objects", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *kueueSlicingResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	c := begin[kueueSlicingModel](ctx, r.clients, req.State, &resp.Diagnostics, opNone, 0)
	if c == nil {
		return
	}
	m := c.Model
	k, _, _ := m.spec(ctx)
	k.TPUQuota = m.TPUQuota.ValueInt64()
	drift, err := c.Engine.KueueDrift(ctx, k)
	if err != nil {
		resp.Diagnostics.AddError("Cannot Read Kueue Objects", err.Error())
		return
	}
	m.InSync = types.BoolValue(len(drift) == 0)
	if len(drift) > 0 {
		tflog.Info(ctx, "Kueue objects drifted", map[string]any{"drift": strings.Join(drift, "; ")})
		resp.Diagnostics.AddWarning("Kueue Objects Changed Outside Terraform",
			fmt.Sprintf("%s. The next apply restores them.", strings.Join(drift, "; ")))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *kueueSlicingResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	c := begin[kueueSlicingModel](ctx, r.clients, req.Plan, &resp.Diagnostics, opUpdate, defaultKueueTimeout)
	if c == nil {
		return
	}
	defer c.done()
	var state kueueSlicingModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m := c.Model
	_, _, now := m.spec(ctx)
	_, _, before := state.spec(ctx)
	var dropped []string
	for _, ns := range before {
		if !slices.Contains(now, ns) {
			dropped = append(dropped, ns)
		}
	}
	if err := r.apply(c.Ctx, c.Engine, &m, dropped); err != nil {
		resp.Diagnostics.AddError("Cannot Apply Kueue Objects", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *kueueSlicingResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	c := begin[kueueSlicingModel](ctx, r.clients, req.State, &resp.Diagnostics, opDelete, defaultKueueTimeout)
	if c == nil {
		return
	}
	defer c.done()
	k, _, _ := c.Model.spec(ctx)
	if err := c.Engine.DeleteKueueSlicing(c.Ctx, k); err != nil {
		resp.Diagnostics.AddError("Cannot Delete Kueue Objects", err.Error())
	}
}

// ImportState takes the name and reads the objects back: the node pools
// (recorded on the ClusterQueue) and the quota, sub-slicing from the
// Topology, and the namespaces of the LocalQueues.
func (r *kueueSlicingResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !dnsLabelRE.MatchString(req.ID) || len(req.ID) > 63 {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("%q is not a gke_kueue_slicing name (a DNS label of at most 63 characters)", req.ID))
		return
	}
	e, diags := engineOf(r.clients)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	k, err := e.ReadKueueSlicing(ctx, req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Cannot Import Kueue Objects", err.Error())
		return
	}
	pools := make([]attr.Value, len(k.NodePools))
	for i, p := range k.NodePools {
		pools[i] = types.StringValue(p)
	}
	namespaces := make([]attr.Value, len(k.Namespaces))
	for i, ns := range k.Namespaces {
		namespaces[i] = types.StringValue(ns)
	}
	m := kueueSlicingModel{
		Name:       types.StringValue(k.Name),
		NodePools:  types.ListValueMust(types.StringType, pools),
		Namespaces: types.SetValueMust(types.StringType, namespaces),
		SubSlicing: types.BoolValue(k.SubSlicing),
		TPUQuota:   types.Int64Value(k.TPUQuota),
		InSync:     types.BoolValue(true),
		Timeouts:   timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType})},
	}
	m.derive(k)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}
