package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

// ModifyPlan shows the provider defaults (project, location, cluster,
// zone) in the plan, checks a new pool's zone against its cluster's
// region and its reservation target against Compute Engine's view of the
// block (planTarget), and notes a new pool of the provider's cluster for
// the plan of a gke_kueue_slicing or partition_selector that names it.
//
// A pool replaced (onto another sub-block, say) is a new pool here too:
// when a plan requires a replacement, Terraform plans the resource again
// as a create, with no prior state, and that plan is checked as any new
// pool's. A pool that stays holds its sub-block: nothing of it is checked.
func (r *subBlockNodePoolResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() || r.provider == nil {
		return
	}
	if !req.State.Raw.IsNull() {
		r.planResume(ctx, req, resp)
		return
	}
	own := r.planDefaults(ctx, req, resp)
	var loc, zone, name, reservation, block types.String
	for attr, v := range map[string]*types.String{"location": &loc, "zone": &zone, "name": &name, "reservation": &reservation, "reservation_block": &block} {
		resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root(attr), v)...)
	}
	if err := location.CheckPoolZone(loc.ValueString(), zone.ValueString()); err != nil {
		addError(&resp.Diagnostics, err, subjectNodePool, "Zone Outside the Cluster's Region")
		return
	}
	if own && !name.IsNull() && !name.IsUnknown() {
		target := ""
		if !reservation.IsUnknown() && !block.IsUnknown() && !block.IsNull() {
			target = reservation.ValueString() + "/" + block.ValueString()
		}
		if e, err := r.provider.Engine(); err == nil {
			e.NodePools().Planned().Note(name.ValueString(), target)
		}
	}
	if own {
		r.planTarget(ctx, resp, name)
	}
}

// planTarget checks a new pool's reservation target at plan, from Compute
// Engine's view of the block (reservation.PlanTarget): an unknown block or
// sub-block, a sub-block another pool holds or with no healthy host, or one
// that another pool of this plan claims (nodepool.SubBlockClaimedError), is
// refused; a sub-block with hosts that are not healthy is warned of. It
// checks nothing until the target is known.
func (r *subBlockNodePoolResource) planTarget(ctx context.Context, resp *resource.ModifyPlanResponse, name types.String) {
	var project, zone, res, block, subBlock types.String
	for attr, v := range map[string]*types.String{"project": &project, "zone": &zone, "reservation": &res,
		"reservation_block": &block, "reservation_sub_block": &subBlock} {
		resp.Diagnostics.Append(resp.Plan.GetAttribute(ctx, path.Root(attr), v)...)
	}
	for _, v := range []types.String{project, zone, res, block, subBlock, name} {
		if v.IsUnknown() {
			return
		}
	}
	if resp.Diagnostics.HasError() || project.ValueString() == "" || zone.ValueString() == "" || res.ValueString() == "" || block.ValueString() == "" {
		return
	}
	e, err := r.provider.Engine()
	if err != nil {
		return // a provider not configured yet: the apply checks the target
	}
	t := reservation.Target{Project: project.ValueString(), Zone: zone.ValueString(), Reservation: res.ValueString(),
		Block: block.ValueString(), SubBlock: subBlock.ValueString()}
	at := path.Root("reservation_block")
	if t.SubBlock != "" {
		at = path.Root("reservation_sub_block")
		if err := e.NodePools().Planned().ClaimSubBlock(t.Path(), name.ValueString()); err != nil {
			addError(&resp.Diagnostics, err, subjectNodePool, "Cannot Create Sub-Block Node Pool")
			return
		}
	}
	warning, err := e.Reservations().PlanTarget(ctx, t, name.ValueString())
	if err != nil {
		resp.Diagnostics.AddAttributeError(at, "Cannot Create Sub-Block Node Pool", err.Error())
		return
	}
	if warning != "" {
		resp.Diagnostics.AddAttributeWarning(at, "Sub-Block Not Healthy", warning)
	}
}

// planDefaults sets the provider's project, location, cluster and zone
// where the configuration leaves them out, and says whether the pool is
// in the provider's cluster.
func (r *subBlockNodePoolResource) planDefaults(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) bool {
	defaults := r.provider.Config()
	zone := ""
	if location.IsZone(defaults.Location) {
		zone = defaults.Location
	}
	own := true
	for attr, value := range map[string]string{"project": defaults.Project, "location": defaults.Location, "cluster": defaults.Cluster, "zone": zone} {
		var v types.String
		resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root(attr), &v)...)
		if v.IsNull() && value != "" {
			resp.Diagnostics.Append(resp.Plan.SetAttribute(ctx, path.Root(attr), value)...)
		}
		if attr != "zone" && !v.IsNull() && (v.IsUnknown() || v.ValueString() != value) {
			own = false
		}
	}
	return own
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
