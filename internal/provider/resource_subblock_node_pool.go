package provider

import (
	"context"
	"fmt"
	"regexp"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
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

	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
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

type subBlockNodePoolResource struct{ provider *configured }

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
	ResourceLabels      types.Map      `tfsdk:"resource_labels"`
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
			"nodes and their partition labels (`wait_for_partition`). Node labels, GCP labels (`resource_labels`), taints, auto-repair and auto-upgrade change in place; the wait settings touch nothing; every other input replaces the pool (and its partition). "+
			"A create that finds a pool of its name with the same reservation target, workload policy, machine type, node count, node labels and resource "+
			"labels (as an apply killed before it recorded the pool leaves it) adopts it, with a warning; one that differs fails, saying what differs "+
			"and the `terraform import` command; one that another run is still creating (its record in the cluster is fresh) fails, naming that run.",
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
				Optional: true, Computed: true, PlanModifiers: replaceKeep, Validators: []validator.String{LocationValidator(location.RegionOrZone)},
				MarkdownDescription: "Location (region or zone) of the cluster. Default: the provider's `location`.",
			},
			"cluster": schema.StringAttribute{Optional: true, Computed: true, PlanModifiers: replaceKeep, MarkdownDescription: "Cluster name. Default: the provider's `cluster`."},
			"zone": schema.StringAttribute{
				Optional: true, Computed: true, PlanModifiers: replaceKeep, Validators: []validator.String{LocationValidator(location.ZoneOnly)},
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
				ElementType: types.StringType, Optional: true, Validators: []validator.Map{nodeLabelsValidator{}},
				MarkdownDescription: "Kubernetes labels for the nodes, beside the ones GKE sets. Changed in place (GKE relabels the nodes; the partition stays). " +
					nodeLabelsRule,
			},
			"resource_labels": schema.MapAttribute{
				ElementType: types.StringType, Optional: true, Validators: []validator.Map{gcpLabelsValidator{}},
				MarkdownDescription: "GCP labels for the pool's VMs (and their disks), beside `node_labels`, which are Kubernetes labels: " + gcpLabelRule + ". " +
					"Changed in place (the nodes and the partition stay); a label changed outside Terraform shows in the next plan.",
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
				Optional: true, Computed: true, Default: stringdefault.StaticString(nodepool.WaitLabelled),
				Validators: []validator.String{stringvalidator.OneOf(nodepool.WaitTargets...)},
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
					"key": schema.StringAttribute{Required: true, Validators: []validator.String{taintKeyValidator{}},
						MarkdownDescription: "Taint key. " + taintKeyRule},
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
	c, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	r.provider = c
}

func (m subBlockNodePoolModel) timeoutsValue() timeouts.Value { return m.Timeouts }
