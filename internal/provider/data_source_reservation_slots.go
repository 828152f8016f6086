package provider

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

var (
	_ datasource.DataSource              = (*reservationSlotsDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*reservationSlotsDataSource)(nil)
)

// NewReservationSlotsDataSource returns gke_reservation_slots.
func NewReservationSlotsDataSource() datasource.DataSource {
	return &reservationSlotsDataSource{}
}

type reservationSlotsDataSource struct{ provider *configured }

var subjectSlots = subject{noun: "Reservation Slots", reader: true}

type reservationSlotsModel struct {
	Project     types.String `tfsdk:"project"`
	Zone        types.String `tfsdk:"zone"`
	Reservation types.String `tfsdk:"reservation"`
	Block       types.String `tfsdk:"reservation_block"`
	SubBlock    types.String `tfsdk:"reservation_sub_block"`
	Unavailable types.Int64  `tfsdk:"unavailable_count"`
	Slots       []slotModel  `tfsdk:"slots"`
}

type slotModel struct {
	SubBlock         types.String `tfsdk:"sub_block"`
	Name             types.String `tfsdk:"name"`
	State            types.String `tfsdk:"state"`
	PhysicalHost     types.String `tfsdk:"physical_host"`
	PhysicalSubBlock types.String `tfsdk:"physical_sub_block"`
	Instance         types.String `tfsdk:"instance"`
	NodeName         types.String `tfsdk:"node_name"`
}

func (d *reservationSlotsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_reservation_slots"
}

func (d *reservationSlotsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The hosts of a reservation sub-block, or of every sub-block of a block, as Compute Engine's reservation slots " +
			"(`reservationSlots.list`) show them: one slot per host, with its physical host, its state and the VM running on it. " +
			"It needs no Kubernetes cluster; with one configured, it also names the node on each host. " +
			"Use it to find an unavailable host, or the host of a node, before a `gke_report_faulty`.",
		Attributes: reservationBlockAttributes(map[string]schema.Attribute{
			"reservation_sub_block": schema.StringAttribute{Optional: true, MarkdownDescription: "Name of the sub-block whose hosts to list. " +
				"Omitted: the hosts of every sub-block of the block, in the order of the sub-blocks' names."},
			"unavailable_count": schema.Int64Attribute{Computed: true, MarkdownDescription: "How many of the slots are `UNAVAILABLE`."},
			"slots": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "Every slot (host), by sub-block then as Compute Engine lists them.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"sub_block": schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the slot's sub-block."},
					"name":      schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the slot."},
					"state": schema.StringAttribute{Computed: true, MarkdownDescription: "State of the slot: `ACTIVE`, `CREATING`, `DELETING`, or " +
						"`UNAVAILABLE` (its host is faulty or in maintenance)."},
					"physical_host": schema.StringAttribute{Computed: true, MarkdownDescription: "Opaque ID of the physical host (`physicalTopology.host`); " +
						"GKE puts the same value on the node's `cloud.google.com/gce-topology-host` label."},
					"physical_sub_block": schema.StringAttribute{Computed: true, MarkdownDescription: "Opaque ID of the sub-block (`physicalTopology.subBlock`), " +
						"the nodes' `cloud.google.com/gce-topology-subblock` label."},
					"instance": schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the VM running on the host " +
						"(`status.runningInstances`), or empty."},
					"node_name": schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the provider's cluster's node on the host " +
						"(found by its `cloud.google.com/gce-topology-host` label), or empty: always empty when no cluster is configured."},
				}},
			},
		}),
	}
}

func (d *reservationSlotsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	c, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	d.provider = c
}

// nodesUnread says whether err is only a failed read of the cluster's
// nodes, beside a read that is otherwise whole.
func nodesUnread(err error) bool {
	var e *reservation.NodeReadError
	return errors.As(err, &e)
}

// clusterConfigured says whether the provider names a cluster or a
// Kubernetes API: whether there are nodes to read.
func clusterConfigured(c clients.Config) bool {
	return c.Cluster != "" || c.Kubernetes != nil
}

func (d *reservationSlotsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	c := begin[reservationSlotsModel](ctx, d.provider, req.Config, &resp.Diagnostics, opNone, 0)
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
	slots, err := e.Reservations().ReadSlots(ctx, m.Project.ValueString(), m.Zone.ValueString(), m.Reservation.ValueString(), m.Block.ValueString(),
		m.SubBlock.ValueString(), clusterConfigured(defaults))
	switch {
	case err == nil:
	case nodesUnread(err):
		resp.Diagnostics.AddWarning("Nodes on the Hosts Not Known",
			"The reservation slots are read, but the nodes on their hosts could not be told (node_name is empty): "+err.Error())
	default:
		addError(&resp.Diagnostics, err, subjectSlots, "Cannot Read Reservation Slots")
		return
	}
	m.Slots = []slotModel{}
	unavailable := int64(0)
	for _, s := range slots {
		if s.State == "UNAVAILABLE" {
			unavailable++
		}
		m.Slots = append(m.Slots, slotModel{
			SubBlock: types.StringValue(s.SubBlock), Name: types.StringValue(s.Name), State: types.StringValue(s.State),
			PhysicalHost: types.StringValue(s.PhysicalHost), PhysicalSubBlock: types.StringValue(s.PhysicalSubBlock),
			Instance: types.StringValue(s.Instance), NodeName: types.StringValue(s.Node),
		})
	}
	m.Unavailable = types.Int64Value(unavailable)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}
