package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/day2"
	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
)

var (
	_ action.Action                   = (*performMaintenanceAction)(nil)
	_ action.ActionWithValidateConfig = (*performMaintenanceAction)(nil)
)

// defaultMaintenanceTimeout bounds gke_perform_maintenance unless its
// timeout says otherwise: a drain deletes slices and node pools first.
const defaultMaintenanceTimeout = 60 * time.Minute

// performMaintenanceAction is gke_perform_maintenance.
type performMaintenanceAction struct{ provider *configured }

type performMaintenanceModel struct {
	Project     types.String `tfsdk:"project"`
	Zone        types.String `tfsdk:"zone"`
	Reservation types.String `tfsdk:"reservation"`
	Block       types.String `tfsdk:"reservation_block"`
	SubBlock    types.String `tfsdk:"sub_block"`
	Drain       types.Bool   `tfsdk:"drain"`
	Timeout     types.String `tfsdk:"timeout"`
}

func (a *performMaintenanceAction) Metadata(_ context.Context, req action.MetadataRequest, resp *action.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_perform_maintenance"
}

func (a *performMaintenanceAction) Schema(_ context.Context, _ action.SchemaRequest, resp *action.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Starts the pending maintenance of a reservation sub-block, or of every sub-block of a block that has some " +
			"(`performMaintenance`), instead of waiting for its window, and waits for the Compute Engine operation. The data source " +
			"`gke_reservation_sub_blocks` shows which sub-blocks have maintenance pending.\n\n" +
			"Google advises deleting the GKE node pool before starting maintenance by hand in All Capacity mode. The action follows that: " +
			"it refuses a sub-block that a slice or a node pool uses, unless `drain = true`. With `drain`, it first deletes the slices whose " +
			"partitions are there and then the node pool placed there, reporting each step; the next `terraform apply` sees them gone and " +
			"recreates those Terraform manages (once the hosts are back, after the maintenance).\n\n" + actionsNeedTerraform,
		Attributes: map[string]schema.Attribute{
			"project": schema.StringAttribute{Optional: true, MarkdownDescription: "Project of the reservation. Default: the provider's `project`."},
			"zone": schema.StringAttribute{Optional: true, Validators: []validator.String{LocationValidator(location.ZoneOnly)},
				MarkdownDescription: "Zone of the reservation. Default: the provider's `location` when it is a zone."},
			"reservation":       schema.StringAttribute{Required: true, MarkdownDescription: "Name of the reservation."},
			"reservation_block": schema.StringAttribute{Required: true, MarkdownDescription: "Name of the reservation block."},
			"sub_block": schema.StringAttribute{Optional: true, MarkdownDescription: "The sub-block whose maintenance to start. Leave it out to start " +
				"the pending maintenance of every sub-block of the block."},
			"drain": schema.BoolAttribute{Optional: true, MarkdownDescription: "Delete the slices and the node pool on the sub-block(s) first, " +
				"instead of refusing. Default `false`."},
			"timeout": schema.StringAttribute{Optional: true, Validators: []validator.String{durationValidator{}},
				MarkdownDescription: fmt.Sprintf("How long the action may take, drain included, such as `\"30m\"`. Default `%s`.", defaultMaintenanceTimeout)},
		},
	}
}

// ValidateConfig checks the names at plan.
func (a *performMaintenanceAction) ValidateConfig(ctx context.Context, req action.ValidateConfigRequest, resp *action.ValidateConfigResponse) {
	var m performMaintenanceModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	for _, f := range []struct {
		v    types.String
		name string
	}{{m.Reservation, "reservation"}, {m.Block, "reservation_block"}, {m.SubBlock, "sub_block"}} {
		if f.v.IsNull() || f.v.IsUnknown() {
			continue
		}
		v := f.v.ValueString()
		if strings.TrimSpace(v) == "" || strings.Contains(v, "/") {
			resp.Diagnostics.AddAttributeError(path.Root(f.name), "Invalid "+f.name,
				fmt.Sprintf("%s %q must be a plain name, not empty and not a path: write the block as reservation_block = \"block-a\" and the sub-block as sub_block = \"sub-block-a1\".", f.name, v))
		}
	}
}

func (a *performMaintenanceAction) Invoke(ctx context.Context, req action.InvokeRequest, resp *action.InvokeResponse) {
	set := a.provider
	c := begin[performMaintenanceModel](ctx, set, req.Config, &resp.Diagnostics, opNone, 0)
	if c == nil {
		return
	}
	m := c.Model
	project, zone := zonalTarget(set.Config(), m.Project, m.Zone, "the action", &resp.Diagnostics)
	ctx, cancel := actionContext(ctx, m.Timeout, defaultMaintenanceTimeout, &resp.Diagnostics)
	defer cancel()
	if resp.Diagnostics.HasError() {
		return
	}
	r := day2.MaintenanceRequest{
		Project: project, Zone: zone, Reservation: m.Reservation.ValueString(), Block: m.Block.ValueString(),
		SubBlock: m.SubBlock.ValueString(), Drain: m.Drain.ValueBool(),
	}
	if r.Drain {
		// The drain deletes node pools of the provider's cluster.
		if _, err := set.Config().ClusterName(); err != nil {
			resp.Diagnostics.AddError("Cannot Drain Without a Cluster", err.Error())
			return
		}
	}
	progress := progressOf(ctx, resp)
	res, err := c.Engine.Day2().PerformMaintenance(ctx, r, progress)
	if err != nil {
		d, own := errorShown(err, subjectMaintenance, shown{summary: "Cannot Start Maintenance"})
		if !own && timedOut(ctx) {
			d.summary = "Maintenance Timed Out"
			d.detail += "\nRaise the action's timeout; what the drain already deleted stays deleted, and the next terraform apply recreates it."
		}
		resp.Diagnostics.Append(d.diagnostic(false))
		return
	}
	if len(res.DeletedSlices)+len(res.DeletedNodePools) > 0 {
		var parts []string
		if len(res.DeletedSlices) > 0 {
			parts = append(parts, "slice(s) "+strings.Join(res.DeletedSlices, ", "))
		}
		if len(res.DeletedNodePools) > 0 {
			parts = append(parts, "node pool(s) "+strings.Join(res.DeletedNodePools, ", "))
		}
		resp.Diagnostics.AddWarning("Drained for Maintenance",
			fmt.Sprintf("The drain deleted %s. The next terraform apply recreates those Terraform manages; their sub-blocks are back when the maintenance ends.", strings.Join(parts, " and ")))
	}
	if len(res.KeptSlices) > 0 {
		resp.Diagnostics.AddWarning("Kueue Slices Left to Kueue",
			fmt.Sprintf("Slice(s) %s belong to Kueue workloads and were not deleted; their nodes went with the node pool, so Kueue evicts and requeues the workloads.", strings.Join(res.KeptSlices, ", ")))
	}
}

// Configure implements action.ActionWithConfigure: it keeps the
// provider's configuration.
func (a *performMaintenanceAction) Configure(_ context.Context, req action.ConfigureRequest, resp *action.ConfigureResponse) {
	c, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	a.provider = c
}
