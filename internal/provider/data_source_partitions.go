package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

var (
	_ datasource.DataSource              = (*partitionsDataSource)(nil)
	_ datasource.DataSourceWithConfigure = (*partitionsDataSource)(nil)
)

var partitionStates = []string{wellknown.PartitionHealthy, wellknown.PartitionDegraded, wellknown.PartitionUnhealthy, wellknown.PartitionUnset, wellknown.PartitionIncomplete}

// NewPartitionsDataSource returns gke_partitions.
func NewPartitionsDataSource() datasource.DataSource { return &partitionsDataSource{} }

type partitionsDataSource struct{ provider *configured }

type partitionsModel struct {
	Shape         types.String     `tfsdk:"shape"`
	NodePools     []types.String   `tfsdk:"node_pools"`
	States        []types.String   `tfsdk:"states"`
	Block         types.String     `tfsdk:"block"`
	AvailableOnly types.Bool       `tfsdk:"available_only"`
	ReadSlots     types.Bool       `tfsdk:"read_slots"`
	Partitions    []partitionModel `tfsdk:"partitions"`
	IDs           []types.String   `tfsdk:"ids"`
	Totals        map[string]int64 `tfsdk:"totals"`
}

type partitionModel struct {
	ID         types.String   `tfsdk:"id"`
	Shape      types.String   `tfsdk:"shape"`
	State      types.String   `tfsdk:"state"`
	NodePool   types.String   `tfsdk:"node_pool"`
	Block      types.String   `tfsdk:"block"`
	SubBlock   types.String   `tfsdk:"sub_block"`
	NodeNames  []types.String `tfsdk:"node_names"`
	Nodes      types.Int64    `tfsdk:"nodes"`
	ReadyNodes types.Int64    `tfsdk:"ready_nodes"`
	Slice      types.String   `tfsdk:"slice"`
	// Held says whether a slice holds it or a partition overlapping it;
	// SlicePartitionID is the partition that slice lists.
	Held              types.Bool   `tfsdk:"held"`
	SlicePartitionID  types.String `tfsdk:"slice_partition_id"`
	ParentPartitionID types.String `tfsdk:"parent_partition_id"`
	KueueWorkload     types.String `tfsdk:"kueue_workload"`
	DeviceAccess      types.String `tfsdk:"device_access"`
	// Hosts are its nodes' hosts and their reservation slots (read_slots);
	// null otherwise.
	Hosts []hostModel `tfsdk:"hosts"`
}

// hostModel is one host of a partition.
type hostModel struct {
	NodeName     types.String `tfsdk:"node_name"`
	PhysicalHost types.String `tfsdk:"physical_host"`
	Slot         types.String `tfsdk:"slot"`
	SlotState    types.String `tfsdk:"slot_state"`
}

func (d *partitionsDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_partitions"
}

func (d *partitionsDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The cluster's partitions of one shape (4x4x4 by default, or a sub-slice shape), grouped from the nodes' " +
			"partition labels (current and, for 4x4x4, preview label names), with their state, node pool, physical block and sub-block, " +
			"parent 4x4x4 partition, nodes, and the slice that holds each or a partition overlapping it; with `read_slots`, each partition's hosts " +
			"and the state of their reservation slots, as Compute Engine reports them. The provider lists the nodes " +
			"and Slices once per run and watches them; every resource and data source shares that list.",
		Attributes: map[string]schema.Attribute{
			"shape": schema.StringAttribute{
				Optional: true, Computed: true,
				Validators: []validator.String{stringvalidator.OneOf(topology.PartitionShapes...)},
				MarkdownDescription: "Shape of the partitions listed: `4x4x4` (default; one per sub-block, what super-slices list), or a sub-slice shape " +
					"`2x4x4`, `2x2x4`, `2x2x2`, `2x2x1` (two, four, eight and sixteen per sub-block, nested: what a sub-slice lists). " +
					"`DEGRADED` exists only for `4x4x4`.",
			},
			"node_pools": schema.ListAttribute{ElementType: types.StringType, Optional: true, MarkdownDescription: "Only partitions of these node pools."},
			"states": schema.ListAttribute{
				ElementType: types.StringType, Optional: true,
				MarkdownDescription: "Only partitions in these states: " + quoted(partitionStates) + ".",
				Validators:          []validator.List{listvalidator.ValueStringsAre(stringvalidator.OneOf(partitionStates...))},
			},
			"block":          schema.StringAttribute{Optional: true, MarkdownDescription: "Only partitions in this physical block (the nodes' `cloud.google.com/gce-topology-block` label)."},
			"available_only": schema.BoolAttribute{Optional: true, MarkdownDescription: "Only partitions a new slice could use: `HEALTHY` or `DEGRADED`, every node Ready, held by no slice, directly or through an overlapping partition."},
			"read_slots": schema.BoolAttribute{Optional: true, MarkdownDescription: "Also tell each partition's hosts (`hosts`): the host of each " +
				"node, and the host's reservation slot and its state, read from Compute Engine (`reservationSlots.list`, once per sub-block of the " +
				"partitions listed; the sub-block is the one the node pool targets, or, for a pool that targets a block, the one its nodes are on). " +
				"Default `false`: `hosts` is null and nothing is read from Compute Engine. Slots that cannot be read are a warning, and their hosts' " +
				"`slot` and `slot_state` are empty."},
			"ids":    schema.ListAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "IDs of the partitions listed, sorted."},
			"totals": schema.MapAttribute{ElementType: types.Int64Type, Computed: true, MarkdownDescription: "Number of partitions listed, by state."},
			"partitions": schema.ListNestedAttribute{
				Computed:            true,
				MarkdownDescription: "The partitions, sorted by ID.",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"id":    schema.StringAttribute{Computed: true, MarkdownDescription: "Partition ID (32 hex digits), as a Slice's `partitionIds` lists it."},
					"shape": schema.StringAttribute{Computed: true, MarkdownDescription: "Shape of the partition."},
					"parent_partition_id": schema.StringAttribute{Computed: true, MarkdownDescription: "The 4x4x4 partition (the sub-block's) that holds it; " +
						"for a 4x4x4 partition, its own ID."},
					"held": schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether a slice holds it, or a partition that overlaps it (a sub-slice " +
						"inside it, or the slice around it): a held partition cannot be used by a new slice."},
					"slice_partition_id": schema.StringAttribute{Computed: true, MarkdownDescription: "The partition that `slice` lists: this one, or the " +
						"overlapping one that holds it; empty when not held, or when only the nodes' slice label says so."},
					"state":       schema.StringAttribute{Computed: true, MarkdownDescription: "Partition state; the worst its nodes report."},
					"node_pool":   schema.StringAttribute{Computed: true, MarkdownDescription: "Node pool of the partition's nodes."},
					"block":       schema.StringAttribute{Computed: true, MarkdownDescription: "Physical block (`cloud.google.com/gce-topology-block`)."},
					"sub_block":   schema.StringAttribute{Computed: true, MarkdownDescription: "Physical sub-block (`cloud.google.com/gce-topology-subblock`)."},
					"node_names":  schema.ListAttribute{ElementType: types.StringType, Computed: true, MarkdownDescription: "Names of its nodes, sorted."},
					"nodes":       schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of its nodes."},
					"ready_nodes": schema.Int64Attribute{Computed: true, MarkdownDescription: "Number of its Ready nodes."},
					"slice":       schema.StringAttribute{Computed: true, MarkdownDescription: "The slice that holds it or a partition overlapping it, or empty."},
					"device_access": schema.StringAttribute{Computed: true, MarkdownDescription: "How pods reach its chips: `dra` when every node is on " +
						"GKE's TPU DRA driver (node label `cloud.google.com/gke-tpu-dra-driver=true`), else `device_plugin`; a `gke_tpu_slice` of it needs that `device_access`."},
					"kueue_workload": schema.StringAttribute{Computed: true, MarkdownDescription: "When Kueue's slice admission check made that slice: " +
						"the workload it was made for, `namespace/name`; otherwise empty. Terraform never changes or deletes such a slice."},
					"hosts": schema.ListNestedAttribute{
						Computed: true,
						MarkdownDescription: "With `read_slots`, the partition's hosts, in the order of `node_names`; null without. A host whose slot is " +
							"`UNAVAILABLE` is faulty or in maintenance: `gke_report_faulty` can name it by `slot`.",
						NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
							"node_name": schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the node."},
							"physical_host": schema.StringAttribute{Computed: true, MarkdownDescription: "Opaque ID of the node's physical host " +
								"(its `cloud.google.com/gce-topology-host` label; empty when it has none), the `physical_host` of `gke_reservation_slots`."},
							"slot": schema.StringAttribute{Computed: true, MarkdownDescription: "Name of the host's reservation slot, or empty when " +
								"it could not be read."},
							"slot_state": schema.StringAttribute{Computed: true, MarkdownDescription: "State of the slot: `ACTIVE`, `CREATING`, `DELETING`, " +
								"or `UNAVAILABLE` (its host is faulty or in maintenance); empty when it could not be read."},
						}},
					},
				}},
			},
		},
	}
}

func (d *partitionsDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	c, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	d.provider = c
}

func (d *partitionsDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	c := begin[partitionsModel](ctx, d.provider, req.Config, &resp.Diagnostics, opNone, 0)
	if c == nil {
		return
	}
	m := c.Model
	if m.Shape.IsNull() {
		m.Shape = types.StringValue(topology.PartitionTopology)
	}
	parts, err := c.Engine.Cluster().ListPartitions(ctx, clusterread.PartitionFilter{
		Shape: m.Shape.ValueString(), NodePools: stringValues(m.NodePools), States: stringValues(m.States), Block: m.Block.ValueString(), AvailableOnly: m.AvailableOnly.ValueBool(),
	})
	if err != nil {
		addError(&resp.Diagnostics, err, subjectPartitions, "Cannot List Partitions")
		return
	}
	m.fill(parts)
	if m.ReadSlots.ValueBool() {
		groups := make([]reservation.NodeGroup, len(parts))
		for i, p := range parts {
			groups[i] = reservation.NodeGroup{NodePool: p.NodePool, PhysicalSubBlock: p.SubBlock, Nodes: p.NodeNames}
		}
		hosts, err := c.Engine.Reservations().HostsOf(ctx, groups, true)
		switch {
		case err == nil:
		case isA[*reservation.SlotReadError](err):
			resp.Diagnostics.AddWarning("Reservation Slots Not Known",
				"The partitions' hosts are told, but the reservation slots of some could not be read (their slot and slot_state are empty): "+err.Error())
		default:
			addError(&resp.Diagnostics, err, subjectPartitions, "Cannot List Partitions")
			return
		}
		m.fillHosts(hosts)
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// fillHosts sets each partition's hosts, in the order of the partitions.
func (m *partitionsModel) fillHosts(hosts [][]reservation.Host) {
	for i := range m.Partitions {
		m.Partitions[i].Hosts = []hostModel{}
		for _, h := range hosts[i] {
			m.Partitions[i].Hosts = append(m.Partitions[i].Hosts, hostModel{
				NodeName: types.StringValue(h.Node), PhysicalHost: types.StringValue(h.PhysicalHost),
				Slot: types.StringValue(h.Slot), SlotState: types.StringValue(h.SlotState),
			})
		}
	}
}

// fill sets the computed attributes from the partitions listed.
func (m *partitionsModel) fill(parts []clusterread.Partition) {
	m.Partitions, m.IDs, m.Totals = []partitionModel{}, []types.String{}, map[string]int64{}
	for _, p := range parts {
		names := make([]types.String, len(p.NodeNames))
		for i, n := range p.NodeNames {
			names[i] = types.StringValue(n)
		}
		m.Partitions = append(m.Partitions, partitionModel{
			ID: types.StringValue(p.ID), State: types.StringValue(p.State), NodePool: types.StringValue(p.NodePool),
			Block: types.StringValue(p.Block), SubBlock: types.StringValue(p.SubBlock), NodeNames: names,
			Nodes: types.Int64Value(int64(p.Nodes)), ReadyNodes: types.Int64Value(int64(p.Ready)), Slice: types.StringValue(p.Slice),
			Shape: types.StringValue(p.Shape), Held: types.BoolValue(p.Slice != ""), SlicePartitionID: types.StringValue(p.SlicePartition),
			ParentPartitionID: types.StringValue(p.Parent), KueueWorkload: types.StringValue(p.KueueWorkload),
			DeviceAccess: types.StringValue(string(p.DeviceAccess())),
		})
		m.IDs = append(m.IDs, types.StringValue(p.ID))
		m.Totals[p.State]++
	}
}

func stringValues(values []types.String) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = v.ValueString()
	}
	return out
}
