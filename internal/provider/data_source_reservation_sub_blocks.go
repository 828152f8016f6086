package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

var (
	_ datasource.DataSource              = (*reservationSubBlocksDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*reservationSubBlocksDataSource)(nil)
)

// NewReservationSubBlocksDataSource returns gke_reservation_sub_blocks.
func NewReservationSubBlocksDataSource() datasource.DataSource {
	return &reservationSubBlocksDataSource{}
}

type reservationSubBlocksDataSource struct{ provider *configured }

type reservationSubBlocksModel struct {
	Project            types.String    `tfsdk:"project"`
	Zone               types.String    `tfsdk:"zone"`
	Reservation        types.String    `tfsdk:"reservation"`
	Block              types.String    `tfsdk:"reservation_block"`
	SubBlockCount      types.Int64     `tfsdk:"sub_block_count"`
	SubBlockInUseCount types.Int64     `tfsdk:"sub_block_in_use_count"`
	FreeSubBlocks      []types.String  `tfsdk:"free_sub_blocks"`
	AvailableSubBlocks []types.String  `tfsdk:"available_sub_blocks"`
	SubBlocks          []subBlockModel `tfsdk:"sub_blocks"`
}

type subBlockModel struct {
	Name              types.String `tfsdk:"name"`
	Free              types.Bool   `tfsdk:"free"`
	Count             types.Int64  `tfsdk:"count"`
	InUseCount        types.Int64  `tfsdk:"in_use_count"`
	Health            types.String `tfsdk:"health"`
	HealthyHostCount  types.Int64  `tfsdk:"healthy_host_count"`
	DegradedHostCount types.Int64  `tfsdk:"degraded_host_count"`
	ReservationPath   types.String `tfsdk:"reservation_path"`
	NodePool          types.String `tfsdk:"node_pool"`
	InUseHostCount    types.Int64  `tfsdk:"in_use_host_count"`
	Topology          types.String `tfsdk:"topology"`
	TopologyState     types.String `tfsdk:"topology_state"`
	// Maintenance, as Compute Engine reports it (reservationSubBlockMaintenance).
	MaintenanceStatus       types.String `tfsdk:"maintenance_status"`
	MaintenancePendingHosts types.Int64  `tfsdk:"maintenance_pending_host_count"`
	MaintenanceOngoingHosts types.Int64  `tfsdk:"maintenance_ongoing_host_count"`
	MaintenanceWindowStart  types.String `tfsdk:"maintenance_window_start"`
}

func (d *reservationSubBlocksDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_reservation_sub_blocks"
}

func (d *reservationSubBlocksDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: fmt.Sprintf("The sub-blocks of a reservation block (each %d hosts, one 4x4x4 partition of %d chips), with their health and use, "+
			"sorted by name, so that a stack can create one `gke_subblock_node_pool` per free sub-block with `for_each`.",
			topology.HostsPerPartition, topology.ChipsPerPartition),
		Attributes: reservationBlockAttributes(map[string]schema.Attribute{
			"sub_block_count":        schema.Int64Attribute{Computed: true, MarkdownDescription: "`reservationSubBlockCount` of the block: how many sub-block node pools it takes."},
			"sub_block_in_use_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "`reservationSubBlockInUseCount` of the block."},
			"free_sub_blocks": schema.ListAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Names of the sub-blocks no VM uses, sorted: the ones a new node pool can target.",
			},
			"available_sub_blocks": schema.ListAttribute{
				ElementType: types.StringType, Computed: true,
				MarkdownDescription: "Names of the sub-blocks whose accelerator topology Compute Engine reports `AVAILABLE`, sorted: " +
					"no VM runs on them and their hosts are healthy. A `gke_subblock_node_pool` aimed at any other sub-block is refused at plan.",
			},
			"sub_blocks": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "Every sub-block of the block, sorted by name.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"name":                schema.StringAttribute{Computed: true, MarkdownDescription: "Sub-block name."},
					"free":                schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether no VM uses it."},
					"count":               schema.Int64Attribute{Computed: true, MarkdownDescription: "Hosts in the sub-block."},
					"in_use_count":        schema.Int64Attribute{Computed: true, MarkdownDescription: "Hosts in use."},
					"health":              schema.StringAttribute{Computed: true, MarkdownDescription: "Health status reported by Compute Engine (`HEALTHY`, `DEGRADED`, `UNHEALTHY`)."},
					"healthy_host_count":  schema.Int64Attribute{Computed: true, MarkdownDescription: "Healthy hosts."},
					"degraded_host_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "Hosts that are not healthy."},
					"reservation_path":    schema.StringAttribute{Computed: true, MarkdownDescription: "Reservation path that targets this sub-block."},
					"node_pool": schema.StringAttribute{Computed: true, MarkdownDescription: "The node pool of the provider's cluster on the sub-block, or empty: " +
						"the pool that targets the sub-block by name (GKE's node pool list; every `gke_subblock_node_pool`, even before its nodes exist), " +
						"else the pool whose nodes are on it (their `cloud.google.com/gce-topology-subblock` label; a pool that targets the whole block). Lets a `for_each` keep the sub-blocks its own pools took: " +
						"`[for s in ...sub_blocks : s.name if s.free || startswith(s.node_pool, \"train-\")]`."},
					"in_use_host_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "Hosts that run a VM (`inUseHostCount`)."},
					"topology": schema.StringAttribute{Computed: true, MarkdownDescription: "The sub-block's accelerator topology " +
						"(`acceleratorTopologiesInfo`; `4x4x4` for TPU7x), or empty when Compute Engine reports none."},
					"topology_state": schema.StringAttribute{Computed: true, MarkdownDescription: "State of that topology as Compute Engine reports it " +
						"(`infoPerTopologyStates[].state`): `AVAILABLE` (no VM runs on it, its hosts are healthy), `RUNNING` (a node pool's VMs run on it), " +
						"`DEGRADED` (a host is not healthy, faulty or in maintenance), or the deprecated `UNHEALTHY`; empty when Compute Engine reports none. " +
						"Read with no cluster configured, it is what a plan knows before any cluster exists."},
					"maintenance_status": schema.StringAttribute{Computed: true, MarkdownDescription: "Maintenance of the sub-block as Compute Engine reports it " +
						"(`reservationSubBlockMaintenance`): `NONE`, `PENDING` (announced; the action `gke_perform_maintenance` can start it) or " +
						"`ONGOING` (its hosts are being maintained)."},
					"maintenance_pending_host_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "Hosts with maintenance pending (`maintenancePendingCount`)."},
					"maintenance_ongoing_host_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "Hosts with maintenance in progress (`maintenanceOngoingCount`)."},
					"maintenance_window_start": schema.StringAttribute{Computed: true, MarkdownDescription: "Start of the maintenance window (RFC 3339, " +
						"`upcomingGroupMaintenance.windowStartTime`), or empty when there is no maintenance."},
				}},
			},
		}),
	}
}

func (d *reservationSubBlocksDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	c, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	d.provider = c
}

func (d *reservationSubBlocksDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	c := begin[reservationSubBlocksModel](ctx, d.provider, req.Config, &resp.Diagnostics, opNone, 0)
	if c == nil {
		return
	}
	m, e := c.Model, c.Engine
	defaults := d.provider.Config()
	project, zone := zonalTarget(defaults, m.Project, m.Zone, "the data source", &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	m.Project, m.Zone = types.StringValue(project), types.StringValue(zone)
	// With no cluster named, the nodes tell the pools.
	read, err := e.Reservations().ReadSubBlocks(ctx, m.Project.ValueString(), m.Zone.ValueString(), m.Reservation.ValueString(), m.Block.ValueString())
	switch {
	case err == nil:
	case nodesUnread(err) && !clusterConfigured(defaults):
		// No cluster: no pool to name, which is no failure.
	case nodesUnread(err):
		resp.Diagnostics.AddWarning("Node Pools on Sub-Blocks Not Known",
			"The sub-blocks are read, but the node pools on the sub-blocks in use that no pool names could not be told from the cluster's nodes: "+err.Error())
	default:
		addError(&resp.Diagnostics, err, subjectSubBlocks, "Cannot Read Reservation Sub-Blocks")
		return
	}
	block, maint := read.Block, read.Maintenance
	m.SubBlockCount, m.SubBlockInUseCount = types.Int64Value(block.SubBlockCount), types.Int64Value(block.SubBlockInUseCount)
	m.FreeSubBlocks = []types.String{}
	for _, name := range block.FreeSubBlocks() {
		m.FreeSubBlocks = append(m.FreeSubBlocks, types.StringValue(name))
	}
	m.AvailableSubBlocks = []types.String{}
	for _, name := range block.AvailableSubBlocks() {
		m.AvailableSubBlocks = append(m.AvailableSubBlocks, types.StringValue(name))
	}
	m.SubBlocks = []subBlockModel{}
	for _, s := range block.SubBlocks {
		mt := subBlockMaintenance(maint, s.Name)
		m.SubBlocks = append(m.SubBlocks, subBlockModel{
			MaintenanceStatus:       types.StringValue(mt.Status),
			MaintenancePendingHosts: types.Int64Value(mt.PendingHosts),
			MaintenanceOngoingHosts: types.Int64Value(mt.OngoingHosts),
			MaintenanceWindowStart:  types.StringValue(mt.WindowStart),
			Name:                    types.StringValue(s.Name), Free: types.BoolValue(s.Free()),
			Count: types.Int64Value(s.Count), InUseCount: types.Int64Value(s.InUseCount),
			Health: types.StringValue(s.Health), HealthyHostCount: types.Int64Value(s.HealthyHostCount), DegradedHostCount: types.Int64Value(s.DegradedHostCount),
			ReservationPath: types.StringValue(s.Path), NodePool: types.StringValue(s.NodePool),
			InUseHostCount: types.Int64Value(s.InUseHostCount), Topology: types.StringValue(s.Topology), TopologyState: types.StringValue(s.TopologyState),
		})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// subBlockMaintenance is the named sub-block's maintenance, NONE when the
// list does not have it.
func subBlockMaintenance(maint []reservation.SubBlockMaintenance, name string) reservation.SubBlockMaintenance {
	for _, m := range maint {
		if m.SubBlock == name {
			return m
		}
	}
	return reservation.SubBlockMaintenance{SubBlock: name, Status: reservation.MaintenanceNone}
}
