package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
)

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
	own := true // the pool is in the provider's cluster
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
	var name types.String
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("name"), &name)...)
	if own && !name.IsNull() && !name.IsUnknown() {
		notePlannedPool(r.clients, name.ValueString())
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
