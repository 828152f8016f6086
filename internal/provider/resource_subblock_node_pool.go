package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/booldefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64default"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/int64planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringdefault"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

var (
	_ resource.Resource                = (*subBlockNodePoolResource)(nil)
	_ resource.ResourceWithConfigure   = (*subBlockNodePoolResource)(nil)
	_ resource.ResourceWithImportState = (*subBlockNodePoolResource)(nil)
	_ resource.ResourceWithModifyPlan  = (*subBlockNodePoolResource)(nil)
	_ resource.ResourceWithIdentity    = (*subBlockNodePoolResource)(nil)
)

// Default timeouts: GKE creates a TPU node pool in minutes, and
// incremental provisioning can take longer when hosts are repaired.
const (
	defaultNodePoolCreateTimeout = 60 * time.Minute
	defaultNodePoolDeleteTimeout = 30 * time.Minute
	defaultNodePoolUpdateTimeout = 30 * time.Minute
)

var poolNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$`)

// NewSubBlockNodePoolResource returns gke_subblock_node_pool.
func NewSubBlockNodePoolResource() resource.Resource { return &subBlockNodePoolResource{} }

type subBlockNodePoolResource struct{ clients *clients.Set }

type subBlockNodePoolModel struct {
	ID                  types.String   `tfsdk:"id"`
	Name                types.String   `tfsdk:"name"`
	Project             types.String   `tfsdk:"project"`
	Location            types.String   `tfsdk:"location"`
	Cluster             types.String   `tfsdk:"cluster"`
	Zone                types.String   `tfsdk:"zone"`
	WorkloadPolicy      types.String   `tfsdk:"workload_policy"`
	Reservation         types.String   `tfsdk:"reservation"`
	ReservationBlock    types.String   `tfsdk:"reservation_block"`
	ReservationSubBlock types.String   `tfsdk:"reservation_sub_block"`
	MachineType         types.String   `tfsdk:"machine_type"`
	NodeCount           types.Int64    `tfsdk:"node_count"`
	NodeLabels          types.Map      `tfsdk:"node_labels"`
	Taints              []taintModel   `tfsdk:"taint"`
	AutoRepair          types.Bool     `tfsdk:"auto_repair"`
	AutoUpgrade         types.Bool     `tfsdk:"auto_upgrade"`
	WaitFor             types.String   `tfsdk:"wait_for_partition"`
	SubBlock            types.String   `tfsdk:"sub_block"`
	ReservationPath     types.String   `tfsdk:"reservation_path"`
	Status              types.String   `tfsdk:"status"`
	PartitionID         types.String   `tfsdk:"partition_id"`
	PartitionState      types.String   `tfsdk:"partition_state"`
	NodeNames           types.List     `tfsdk:"node_names"`
	ReadyNodeCount      types.Int64    `tfsdk:"ready_node_count"`
	Timeouts            timeouts.Value `tfsdk:"timeouts"`
}

type taintModel struct {
	Key    types.String `tfsdk:"key"`
	Value  types.String `tfsdk:"value"`
	Effect types.String `tfsdk:"effect"`
}

var taintEffects = []string{"NO_SCHEDULE", "PREFER_NO_SCHEDULE", "NO_EXECUTE"}

func (r *subBlockNodePoolResource) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_subblock_node_pool"
}

func (r *subBlockNodePoolResource) Schema(ctx context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	replace := []planmodifier.String{stringplanmodifier.RequiresReplace()}
	replaceKeep := []planmodifier.String{stringplanmodifier.RequiresReplace(), stringplanmodifier.UseStateForUnknown()}
	keep := []planmodifier.String{stringplanmodifier.UseStateForUnknown()}
	resp.Schema = schema.Schema{
		MarkdownDescription: fmt.Sprintf("A GKE node pool of %d `%s` nodes on one reservation sub-block: one 4x4x4 partition of %d chips, "+
			"placed by a workload policy, the building block of dynamic slices. Target a block (GKE picks an available sub-block; "+
			"create one pool per sub-block) or a sub-block. Create checks the target first, waits for the GKE operation, then for the "+
			"nodes and their partition labels (`wait_for_partition`). Node labels, taints, auto-repair and auto-upgrade change in place; the wait settings touch nothing; every other input replaces the pool (and its partition). "+
			"A create that finds a pool of its name with the same reservation target, workload policy, machine type and node count (as an apply killed before it "+
			"recorded the pool leaves it) adopts it, with a warning; one that differs fails, saying what differs and the `terraform import` command.",
			topology.HostsPerPartition, topology.MachineType, topology.ChipsPerPartition),
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:            true,
				MarkdownDescription: "GKE node pool ID `projects/{project}/locations/{location}/clusters/{cluster}/nodePools/{name}`; the import ID.",
				PlanModifiers:       keep,
			},
			"name": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "Node pool name: 1-40 lower-case letters, digits or hyphens, starting with a letter.",
				PlanModifiers:       replace,
				Validators:          []validator.String{stringvalidator.RegexMatches(poolNameRE, "must be 1-40 lower-case letters, digits or hyphens, start with a letter and not end with a hyphen")},
			},
			"project": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: replaceKeep, MarkdownDescription: "Project of the cluster. Default: the provider's `project`."},
			"location": schema.StringAttribute{
				Optional: true, Computed: true, PlanModifiers: replaceKeep, Validators: []validator.String{LocationValidator(engine.RegionOrZone)},
				MarkdownDescription: "Location (region or zone) of the cluster. Default: the provider's `location`.",
			},
			"cluster": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: replaceKeep, MarkdownDescription: "Cluster name. Default: the provider's `cluster`."},
			"zone": schema.StringAttribute{
				Optional: true, Computed: true, PlanModifiers: replaceKeep, Validators: []validator.String{LocationValidator(engine.ZoneOnly)},
				MarkdownDescription: "Zone of the reservation, where the nodes are created. Default: the provider's `location` when it is a zone.",
			},
			"workload_policy": schema.StringAttribute{
				Required:            true,
				MarkdownDescription: "The workload policy that places the pool: its name or self link (for example `gke_workload_policy.this.self_link`).",
				PlanModifiers:       replace,
			},
			"reservation": schema.StringAttribute{
				Required: true, PlanModifiers: replace,
				MarkdownDescription: "Name of the All Capacity mode TPU7x reservation, in the same project.",
			},
			"reservation_block": schema.StringAttribute{
				Required: true, PlanModifiers: replace,
				MarkdownDescription: "Name of the reservation block. Without `reservation_sub_block`, GKE places the pool in an available sub-block of it.",
			},
			"reservation_sub_block": schema.StringAttribute{
				Optional: true, PlanModifiers: replace,
				MarkdownDescription: "Name of the sub-block to target. It must be free; GKE creates the pool if at least one of its hosts is healthy and provisions the others as they are repaired.",
			},
			"machine_type": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(topology.MachineType), PlanModifiers: replace,
				Validators:          []validator.String{stringvalidator.OneOf(topology.MachineType)},
				MarkdownDescription: "Machine type: `" + topology.MachineType + "` (the default), the only one dynamic slicing uses.",
			},
			"node_count": schema.Int64Attribute{
				Optional: true, Computed: true, Default: int64default.StaticInt64(topology.HostsPerPartition),
				PlanModifiers:       []planmodifier.Int64{int64planmodifier.RequiresReplace()},
				Validators:          []validator.Int64{int64validator.Between(1, topology.HostsPerPartition)},
				MarkdownDescription: fmt.Sprintf("Number of nodes. Default %d, a whole sub-block; with fewer, GKE reports the partition as `UNSET`.", topology.HostsPerPartition),
			},
			"node_labels": schema.MapAttribute{
				ElementType: types.StringType, Optional: true,
				MarkdownDescription: "Kubernetes labels for the nodes, beside the ones GKE sets. Changed in place (GKE relabels the nodes; the partition stays).",
			},
			"auto_repair": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(true),
				MarkdownDescription: "Let GKE repair unhealthy nodes. Default `true`. Changed in place.",
			},
			"auto_upgrade": schema.BoolAttribute{
				Optional: true, Computed: true, Default: booldefault.StaticBool(false),
				MarkdownDescription: "Let GKE upgrade the nodes. Default `false`: an upgrade recreates the nodes of a running training job's slice. Changed in place.",
			},
			"wait_for_partition": schema.StringAttribute{
				Optional: true, Computed: true, Default: stringdefault.StaticString(engine.WaitLabelled),
				Validators: []validator.String{stringvalidator.OneOf(engine.WaitTargets...)},
				MarkdownDescription: "What create waits for after the GKE operation: `LABELLED` (default: the nodes carry their partition ID and state, and at least one is Ready), " +
					"`HEALTHY` (partition state `HEALTHY`: all 16 nodes), or `HEALTHY_OR_DEGRADED`. Changing it does not touch the pool.",
			},
			"sub_block": schema.StringAttribute{
				Computed: true, PlanModifiers: keep,
				MarkdownDescription: "The sub-block the pool is on: `reservation_sub_block`, or the one GKE chose in the block.",
			},
			"reservation_path": schema.StringAttribute{
				Computed: true, PlanModifiers: keep,
				MarkdownDescription: "The reservation path given to GKE: `projects/P/reservations/R/reservationBlocks/B[/reservationSubBlocks/S]`.",
			},
			"status":          schema.StringAttribute{Computed: true, MarkdownDescription: "GKE status of the pool (`RUNNING`, `PROVISIONING`, `ERROR`, ...)."},
			"partition_id":    schema.StringAttribute{Computed: true, PlanModifiers: keep, MarkdownDescription: "ID of the pool's 4x4x4 partition, from the nodes' `cloud.google.com/gke-tpu-partition-4x4x4-id` label: what a Slice's `partitionIds` lists."},
			"partition_state": schema.StringAttribute{Computed: true, MarkdownDescription: "Partition state from the nodes: `HEALTHY`, `DEGRADED`, `UNHEALTHY`, `UNSET` or `INCOMPLETE`. Refreshed on every plan."},
			"node_names": schema.ListAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Names of the pool's Kubernetes nodes, sorted.",
			},
			"ready_node_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "How many of the pool's nodes are Ready."},
		},
		Blocks: map[string]schema.Block{
			"taint": schema.ListNestedBlock{
				MarkdownDescription: "Kubernetes taints for the nodes. Changed in place.",
				NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
					"key":    schema.StringAttribute{Required: true, MarkdownDescription: "Taint key."},
					"value":  schema.StringAttribute{Optional: true, MarkdownDescription: "Taint value."},
					"effect": schema.StringAttribute{Required: true, MarkdownDescription: "One of " + quoted(taintEffects) + ".", Validators: []validator.String{stringvalidator.OneOf(taintEffects...)}},
				}},
			},
			"timeouts": timeoutsBlock(ctx, timeouts.Opts{Create: true, Update: true, Delete: true, CreateDescription: "Default 60m.", UpdateDescription: "Default 30m.", DeleteDescription: "Default 30m."}),
		},
	}
}

// IdentitySchema implements resource.ResourceWithIdentity.
func (r *subBlockNodePoolResource) IdentitySchema(_ context.Context, _ resource.IdentitySchemaRequest, resp *resource.IdentitySchemaResponse) {
	resp.IdentitySchema = poolIdentitySchema()
}

func (r *subBlockNodePoolResource) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	set, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.clients = set
}

// ModifyPlan shows the provider defaults (project, location, cluster,
// zone) in the plan.
func (r *subBlockNodePoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.clients == nil {
		return
	}
	if !req.State.Raw.IsNull() {
		r.planResume(ctx, req, resp)
		return
	}
	defaults := r.clients.Config()
	zone := ""
	if engine.IsZone(defaults.Location) {
		zone = defaults.Location
	}
	for attr, value := range map[string]string{"project": defaults.Project, "location": defaults.Location, "cluster": defaults.Cluster, "zone": zone} {
		var v types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(attr), &v)...)
		if v.IsNull() && value != "" {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attr), value)...)
		}
	}
}

// planResume plans an update of a pool whose create was interrupted and
// has not finished: the apply waits for it (Update), the pool stays.
func (r *subBlockNodePoolResource) planResume(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	// The two attributes it needs, not the whole state: a plan of a full
	// pod decodes 144 pool states once less.
	var state subBlockNodePoolModel
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &state.ID)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("status"), &state.Status)...)
	if resp.Diagnostics.HasError() || !state.provisioning() {
		return
	}
	for _, attr := range []string{"status", "partition_id", "partition_state"} {
		resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attr), types.StringUnknown())...)
	}
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("node_names"), types.ListUnknown(types.StringType))...)
	resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root("ready_node_count"), types.Int64Unknown())...)
	resp.Diagnostics.AddWarning("Node Pool Not Finished", fmt.Sprintf(
		"Node pool %s is still PROVISIONING (its create was interrupted): this apply waits for it, within the create timeout.", state.ID.ValueString()))
}

func (m subBlockNodePoolModel) spec(ctx context.Context) (engine.NodePoolSpec, diag.Diagnostics) {
	var diags diag.Diagnostics
	labels := map[string]string{}
	diags.Append(m.NodeLabels.ElementsAs(ctx, &labels, false)...)
	s := engine.NodePoolSpec{
		Project: m.Project.ValueString(), Location: m.Location.ValueString(), Cluster: m.Cluster.ValueString(), Name: m.Name.ValueString(),
		Policy: m.WorkloadPolicy.ValueString(),
		Target: engine.Target{
			Project: m.Project.ValueString(), Zone: m.Zone.ValueString(), Reservation: m.Reservation.ValueString(),
			Block: m.ReservationBlock.ValueString(), SubBlock: m.ReservationSubBlock.ValueString(),
		},
		MachineType: m.MachineType.ValueString(), NodeCount: m.NodeCount.ValueInt64(), Labels: labels,
		AutoRepair: m.AutoRepair.ValueBool(), AutoUpgrade: m.AutoUpgrade.ValueBool(), WaitFor: m.WaitFor.ValueString(),
	}
	if len(labels) == 0 {
		s.Labels = nil
	}
	for _, t := range m.Taints {
		s.Taints = append(s.Taints, engine.Taint{Key: t.Key.ValueString(), Value: t.Value.ValueString(), Effect: t.Effect.ValueString()})
	}
	var missing []string
	for name, v := range map[string]string{"project": s.Project, "location": s.Location, "cluster": s.Cluster, "zone": s.Target.Zone} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		diags.AddError("Missing Node Pool Settings", fmt.Sprintf("%s not set: set them on the resource, or project, location (a zone for zone) and cluster on the provider",
			strings.Join(missing, ", ")))
	}
	return s, diags
}

func (r *subBlockNodePoolResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	c := begin[subBlockNodePoolModel](ctx, r.clients, req.Plan, &resp.Diagnostics, opCreate, defaultNodePoolCreateTimeout)
	if c == nil {
		return
	}
	defer c.done()
	m := c.Model
	spec, diags := m.spec(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	pool, err := c.Engine.CreateNodePool(c.Ctx, spec, func(id string) {
		// Record the pool before any wait: a failure or a timeout then
		// leaves it in the state (tainted), an interrupt (not tainted,
		// see recordFailedCreate), never orphaned.
		m.ID = types.StringValue(id)
		m.ReservationPath = types.StringValue(spec.Target.Path())
		m.SubBlock = types.StringValue(spec.Target.SubBlock)
		m.Status, m.PartitionID, m.PartitionState = types.StringValue(engine.PoolProvisioning), types.StringNull(), types.StringNull()
		m.NodeNames, m.ReadyNodeCount = types.ListValueMust(types.StringType, nil), types.Int64Value(0)
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
		setIdentity(ctx, resp.Identity, poolIdentityModel{Project: m.Project, Location: m.Location, Cluster: m.Cluster, Name: m.Name}, &resp.Diagnostics)
	})
	var exists *engine.ExistsError
	if errors.As(err, &exists) {
		resp.Diagnostics.AddAttributeError(path.Root("name"), "Node Pool Name Taken", existsDetail(exists, "gke_subblock_node_pool"))
		return
	}
	if err != nil {
		if r.recordFailedCreate(ctx, c.Engine, m, resp) {
			return
		}
		resp.Diagnostics.AddError("Cannot Create Sub-Block Node Pool", err.Error())
		return
	}
	if pool.Adopted != "" {
		resp.Diagnostics.AddWarning("Existing Node Pool Adopted", pool.Adopted)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, poolModel(pool, m))...)
	setIdentity(ctx, resp.Identity, poolIdentity(pool), &resp.Diagnostics)
}

// recordFailedCreate records a pool whose create failed or was interrupted
// after GKE accepted it, as it is now (ERROR after a failed operation), by
// the interrupted-create protocol: an interrupted pool that can still
// finish is not tainted, and the next apply waits for it.
func (r *subBlockNodePoolResource) recordFailedCreate(ctx context.Context, e *engine.Engine, m subBlockNodePoolModel, resp *resource.CreateResponse) bool {
	if m.ID.IsNull() || m.ID.IsUnknown() {
		return false // nothing was made
	}
	return recordInterrupted(ctx, "Node Pool", m.ID.ValueString(), func(rctx context.Context) (engine.Progress, error) {
		pool, err := e.ReadNodePool(rctx, m.ID.ValueString())
		if err != nil {
			return engine.Progress{}, err
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, poolModel(pool, m))...)
		return engine.PoolProgress(pool.Status), nil
	}, &resp.Diagnostics)
}

// provisioning says whether the pool's create has not finished: the next
// apply waits for it (an interrupted create).
func (m subBlockNodePoolModel) provisioning() bool {
	return engine.PoolProgress(m.Status.ValueString()).Waiting
}

func (r *subBlockNodePoolResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	c := begin[subBlockNodePoolModel](ctx, r.clients, req.State, &resp.Diagnostics, opNone, 0)
	if c == nil {
		return
	}
	m := c.Model
	pool, err := c.Engine.ReadNodePool(ctx, m.ID.ValueString())
	if errors.Is(err, engine.ErrNotFound) {
		// Terraform shows it in the plan as a create: no warning needed.
		tflog.Info(ctx, "Node pool gone; removing it from the state", map[string]any{"node_pool": m.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		setIdentity(ctx, resp.Identity, poolIdentityOfID(m.ID.ValueString()), &resp.Diagnostics) // the framework wants one even so
		return
	}
	if err != nil {
		resp.Diagnostics.AddError("Cannot Read Sub-Block Node Pool", err.Error())
		return
	}
	if pool.PartitionState != "" && pool.PartitionState != wellknown.PartitionHealthy {
		// One summary of every unhealthy partition per plan, not one
		// warning per pool.
		if summary := c.Engine.UnhealthyPartitionsOnce(ctx); summary != "" {
			resp.Diagnostics.AddWarning("Partitions Not Healthy", summary)
		}
	}
	setRefreshed(ctx, &resp.State, m, poolModel(pool, m), &resp.Diagnostics)
	setIdentity(ctx, resp.Identity, poolIdentity(pool), &resp.Diagnostics)
}

// Update changes the nodes' labels and taints and the pool's auto-repair
// and auto-upgrade in place, as GKE does; waits and timeouts touch nothing.
// Every other input forces replacement.
func (r *subBlockNodePoolResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var plan, state subBlockNodePoolModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Set even when Terraform keeps none (before 1.12): the framework wants one.
	setIdentity(ctx, resp.Identity, poolIdentityOfID(state.ID.ValueString()), &resp.Diagnostics)
	from, diags := state.spec(ctx)
	resp.Diagnostics.Append(diags...)
	to, diags := plan.spec(ctx)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	if state.provisioning() {
		// An interrupted create: wait for it, within the create timeout.
		c := begin[subBlockNodePoolModel](ctx, r.clients, req.Plan, &resp.Diagnostics, opCreate, defaultNodePoolCreateTimeout)
		if c == nil {
			return
		}
		defer c.done()
		pool, err := c.Engine.ResumeNodePool(c.Ctx, from)
		if err != nil {
			resp.Diagnostics.AddError("Node Pool Did Not Finish", err.Error())
			return
		}
		state = poolModel(pool, state)
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
	}
	if from.SameInPlaceSettings(to) {
		state.WaitFor, state.Timeouts = plan.WaitFor, plan.Timeouts
		resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
		return
	}
	c := begin[subBlockNodePoolModel](ctx, r.clients, req.Plan, &resp.Diagnostics, opUpdate, defaultNodePoolUpdateTimeout)
	if c == nil {
		return
	}
	defer c.done()
	pool, err := c.Engine.UpdateNodePool(c.Ctx, from, to)
	if err != nil {
		resp.Diagnostics.AddError("Cannot Update Sub-Block Node Pool", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, poolModel(pool, plan))...)
}

func (r *subBlockNodePoolResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	c := begin[subBlockNodePoolModel](ctx, r.clients, req.State, &resp.Diagnostics, opDelete, defaultNodePoolDeleteTimeout)
	if c == nil {
		return
	}
	defer c.done()
	if err := c.Engine.DeleteNodePool(c.Ctx, c.Model.ID.ValueString()); err != nil {
		resp.Diagnostics.AddError("Cannot Delete Sub-Block Node Pool", err.Error())
	}
}

// ImportState takes the GKE node pool ID, or an identity.
func (r *subBlockNodePoolResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID == "" {
		var id poolIdentityModel
		if !fromIdentity(ctx, req.Identity, &id, &resp.Diagnostics) {
			return
		}
		var err error
		if req.ID, err = poolIDFromIdentity(id, configOf(r.clients)); err != nil {
			resp.Diagnostics.AddError("Invalid Import Identity", err.Error())
			return
		}
	}
	id, err := engine.CanonicalNodePoolID(req.ID)
	if err != nil {
		resp.Diagnostics.AddError("Invalid Import ID", err.Error())
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("wait_for_partition"), engine.WaitLabelled)...)
}

// poolModel is the state of a pool as read. Inputs the API reports in
// another spelling keep the prior value: a policy given as a self link,
// and the labels and taints as configured.
func poolModel(p *engine.NodePool, prior subBlockNodePoolModel) subBlockNodePoolModel {
	m := prior
	m.ID = types.StringValue(p.ID)
	m.Name, m.Project, m.Location, m.Cluster = types.StringValue(p.Name), types.StringValue(p.Project), types.StringValue(p.Location), types.StringValue(p.Cluster)
	if p.Zone != "" {
		m.Zone = types.StringValue(p.Zone)
	}
	prevPolicy := prior.WorkloadPolicy.ValueString()
	if prevPolicy[strings.LastIndex(prevPolicy, "/")+1:] != p.Policy {
		m.WorkloadPolicy = types.StringValue(p.Policy)
	}
	m.Reservation, m.ReservationBlock = types.StringValue(p.Reservation), types.StringValue(p.Block)
	m.ReservationSubBlock = types.StringNull()
	if strings.Contains(p.ReservationPath, "/reservationSubBlocks/") {
		m.ReservationSubBlock = types.StringValue(p.SubBlock)
	}
	m.MachineType, m.NodeCount = types.StringValue(p.MachineType), types.Int64Value(p.NodeCount)
	m.AutoRepair, m.AutoUpgrade = types.BoolValue(p.AutoRepair), types.BoolValue(p.AutoUpgrade)
	if len(p.Labels) > 0 {
		labels := map[string]attr.Value{}
		for k, v := range p.Labels {
			labels[k] = types.StringValue(v)
		}
		m.NodeLabels = types.MapValueMust(types.StringType, labels)
	} else if !prior.NodeLabels.IsNull() && len(prior.NodeLabels.Elements()) > 0 || prior.NodeLabels.IsUnknown() {
		m.NodeLabels = types.MapNull(types.StringType)
	}
	m.Taints = nil
	for _, t := range p.Taints {
		value := types.StringNull()
		if t.Value != "" {
			value = types.StringValue(t.Value)
		}
		m.Taints = append(m.Taints, taintModel{Key: types.StringValue(t.Key), Value: value, Effect: types.StringValue(t.Effect)})
	}
	if m.WaitFor.IsNull() || m.WaitFor.IsUnknown() {
		m.WaitFor = types.StringValue(engine.WaitLabelled)
	}
	m.SubBlock = types.StringValue(p.SubBlock)
	m.ReservationPath = types.StringValue(p.ReservationPath)
	m.Status = types.StringValue(p.Status)
	m.PartitionID, m.PartitionState = orNullString(p.PartitionID), orNullString(p.PartitionState)
	names := make([]attr.Value, len(p.NodeNames))
	for i, n := range p.NodeNames {
		names[i] = types.StringValue(n)
	}
	m.NodeNames = types.ListValueMust(types.StringType, names)
	m.ReadyNodeCount = types.Int64Value(p.ReadyNodes)
	if m.Timeouts.IsNull() {
		m.Timeouts = timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType})}
	}
	return m
}

func orNullString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

func (m subBlockNodePoolModel) timeoutsValue() timeouts.Value { return m.Timeouts }
