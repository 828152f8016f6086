package provider

import (
	"context"
	"fmt"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
)

// ValidateConfig requires exactly one way of naming the partitions.
func (r *tpuSliceResource) ValidateConfig(ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	var ids types.List
	var selector types.Object
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("partition_ids"), &ids)...)
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("partition_selector"), &selector)...)
	if resp.Diagnostics.HasError() {
		return
	}
	var pools types.List
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, path.Root("partition_selector").AtName("node_pools"), &pools)...)
	if !pools.IsNull() && !pools.IsUnknown() {
		names := make([]string, 0, len(pools.Elements()))
		for range pools.Elements() {
			names = append(names, "")
		}
		if err := (engine.PartitionSelector{NodePools: names}).Check(); err != nil {
			resp.Diagnostics.AddAttributeError(path.Root("partition_selector").AtName("node_pools"), "No Node Pools to Select From", err.Error())
		}
	}
	switch hasIDs, hasSelector := !ids.IsNull(), !selector.IsNull(); {
	case hasIDs && hasSelector:
		resp.Diagnostics.AddAttributeError(path.Root("partition_selector"), "Partitions Given Twice",
			"set partition_ids (the partitions to join) or a partition_selector block (to choose them from node pools), not both")
	case !hasIDs && !hasSelector && !ids.IsUnknown():
		resp.Diagnostics.AddAttributeError(path.Root("partition_ids"), "No Partitions",
			"a slice needs its partitions: set partition_ids (for example the partition_id of gke_subblock_node_pool resources), "+
				"or a partition_selector block to choose them from node pools")
	}
}

// replaceBroken plans the replacement of a slice that cannot recover in
// place: FAILED (the controller does not re-form it) or being deleted. A
// selector chooses the partitions again.
func (r *tpuSliceResource) replaceBroken(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m *tpuSliceModel) {
	var id types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
	e, err := r.clients.Engine()
	if err != nil || id.IsNull() {
		return
	}
	verdict := e.CheckExistingSlice(ctx, id.ValueString())
	if !verdict.Replace {
		return
	}
	tflog.Info(ctx, "Planning the replacement of a broken slice", map[string]any{"slice": id.ValueString(), "why": verdict.Why})
	m.State, m.Message, m.Ready, m.Conditions = types.StringUnknown(), types.StringUnknown(), types.BoolUnknown(), types.ListUnknown(conditionType)
	if m.PartitionSelector != nil {
		m.PartitionIDs = types.ListUnknown(types.StringType)
	}
	resp.RequiresReplace = append(resp.RequiresReplace, path.Root("state"))
	resp.Diagnostics.AddWarning("Slice Will Be Replaced", verdict.Why+": it cannot recover in place, so this plan replaces it (delete, then create).")
}

// planSelector decides what a partition_selector that differs from the
// state's does to an existing slice. The slice is kept while its
// partitions satisfy the new selector: they stand for its choice, and the
// apply only records it. That covers a selector where the state has none
// (after an import, or when the configuration moves from listing
// partitions to selecting them) and a selector rewritten to one that
// still holds (node_pools replaced by the workload_policy that places the
// same pools, say). Otherwise the slice is replaced, to choose again.
func (r *tpuSliceResource) planSelector(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m *tpuSliceModel) {
	var prior, planned types.Object
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("partition_selector"), &prior)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("partition_selector"), &planned)...)
	if resp.Diagnostics.HasError() || planned.Equal(prior) || planned.IsNull() {
		// Unchanged, or back to listed partitions, which partition_ids
		// judges.
		return
	}
	replace := func(warning string) {
		m.State, m.Message, m.Ready, m.Conditions = types.StringUnknown(), types.StringUnknown(), types.BoolUnknown(), types.ListUnknown(conditionType)
		m.PartitionIDs = types.ListUnknown(types.StringType)
		resp.RequiresReplace = append(resp.RequiresReplace, path.Root("partition_selector"))
		if warning != "" {
			resp.Diagnostics.AddAttributeWarning(path.Root("partition_selector"), "Slice Will Be Replaced", warning)
		}
	}
	var ids []string
	resp.Diagnostics.Append(m.PartitionIDs.ElementsAs(ctx, &ids, false)...)
	sel, known := m.selector()
	e, err := r.clients.Engine()
	if resp.Diagnostics.HasError() || !known || sel == nil || err != nil || m.Topology.IsUnknown() {
		if !prior.IsNull() {
			replace("") // another selector, not checkable now: it chooses again
			return
		}
		resp.Diagnostics.AddAttributeWarning(path.Root("partition_selector"), "Partition Selector Not Checked",
			"The slice's partitions cannot be checked against partition_selector yet (some of its values are known only after apply, "+
				"or the provider's configuration is not): the slice is kept, and this apply records the selector.")
		return
	}
	check := e.CheckSelectorHolds(ctx, m.Name.ValueString(), m.Topology.ValueString(), *sel, ids)
	switch {
	case check.Verdict == engine.SelectorHolds:
		tflog.Info(ctx, "The slice's partitions satisfy its partition selector; recording the selector", map[string]any{"slice": m.Name.ValueString()})
	case check.Verdict == engine.SelectorUnknown && prior.IsNull():
		resp.Diagnostics.AddAttributeWarning(path.Root("partition_selector"), "Partition Selector Not Checked",
			fmt.Sprintf("The partitions of slice %s cannot be checked against partition_selector now (%s): the slice is kept, and this "+
				"apply records the selector. Plan again once the cluster can be read to check them.", m.Name.ValueString(), check.Reason))
	case check.Verdict == engine.SelectorUnknown:
		replace(fmt.Sprintf("partition_selector of slice %s changed, and its partitions cannot be checked against the new one now (%s), "+
			"so this plan replaces the slice to choose them again. Plan again once the cluster can be read to keep it.", m.Name.ValueString(), check.Reason))
	default:
		replace(fmt.Sprintf("The partitions of slice %s do not satisfy partition_selector (%s), so this plan replaces the slice to choose "+
			"them again. To keep it, widen the selector or list its partitions in partition_ids.", m.Name.ValueString(), check.Reason))
	}
}

// planResume plans an update of a slice that is still forming (its create
// was interrupted): the apply waits for it (Update), the slice stays.
func planResume(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m *tpuSliceModel) {
	// The three attributes it needs, not the whole state: a plan of many
	// slices decodes each state once less.
	var state tpuSliceModel
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &state.ID)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("state"), &state.State)...)
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("retry_on_failure"), &state.RetryOnFailure)...)
	if resp.Diagnostics.HasError() || !state.forming() || len(resp.RequiresReplace) > 0 {
		return
	}
	m.State, m.Message, m.Ready, m.Conditions = types.StringUnknown(), types.StringUnknown(), types.BoolUnknown(), types.ListUnknown(conditionType)
	resp.Diagnostics.AddWarning("Slice Not Ready", fmt.Sprintf(
		"Slice %s is not ACTIVE yet (%s; its create was interrupted): this apply waits for it, within the create timeout.",
		state.ID.ValueString(), orNotReported(state.State.ValueString())))
}

// ModifyPlan derives the workload wiring from the topology and, for a new
// slice with a selector, reports a selection that the existing pools
// cannot meet. The choice itself is made at apply.
func (r *tpuSliceResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		return
	}
	var m tpuSliceModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	planned := m
	m.derive()
	var access *engine.DeviceAccess
	if !req.State.Raw.IsNull() && r.clients != nil {
		r.replaceBroken(ctx, req, resp, &m)
		if len(resp.RequiresReplace) == 0 {
			r.planSelector(ctx, req, resp, &m)
		}
		planResume(ctx, req, resp, &m)
		access = accessChange(ctx, req, resp, m)
	}
	if req.State.Raw.IsNull() && r.clients != nil {
		r.checkNewSlice(ctx, resp, m)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	r.planChecks(ctx, resp, m, access)
	if reflect.DeepEqual(m, planned) {
		return // nothing changed: the plan stands as Terraform proposed it (most plans of an existing slice)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, m)...)
}

// accessChange is the device_access to check at plan (planChecks): one
// changed, with the slice's partitions and topology known; nil otherwise.
func accessChange(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m tpuSliceModel) *engine.DeviceAccess {
	var was types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("device_access"), &was)...)
	if m.DeviceAccess.IsUnknown() || m.DeviceAccess.Equal(was) || m.PartitionIDs.IsUnknown() || m.Topology.IsUnknown() {
		return nil
	}
	access := m.access()
	return &access
}

// checkNewSlice warns at plan of what is known to stop a new slice: a
// cluster whose Kubernetes API cannot be read (wrong CA, credentials,
// permissions, no Slice API), and a selection the existing pools cannot
// meet. Warnings, not errors: terraform destroy plans the configuration
// first (its pre-destroy refresh), and a slice that cannot be created must
// not stop the destroy of the rest. The create fails with the same cause.
func (r *tpuSliceResource) checkNewSlice(ctx context.Context, resp *resource.ModifyPlanResponse, m tpuSliceModel) {
	e, err := r.clients.Engine()
	if err != nil {
		return // the provider's configuration is not known yet
	}
	p := engine.NewSlicePlan{}
	if !m.Name.IsUnknown() {
		p.Name = m.Name.ValueString()
	}
	if !m.Topology.IsUnknown() {
		p.Topology = m.Topology.ValueString()
	}
	if !m.PartitionIDs.IsUnknown() {
		ids := []string{}
		if diags := m.PartitionIDs.ElementsAs(ctx, &ids, false); !diags.HasError() {
			p.PartitionIDs = ids
		}
	} else if sel, known := m.selector(); known {
		p.Selector = sel
	}
	if m.DeviceAccess.IsUnknown() {
		p.PartitionIDs = nil // the access is checked at apply
	}
	p.DeviceAccess = m.access()
	p.PlannedBlocks = plannedPoolBlocks(r.clients)
	verdict := e.PlanNewSlice(ctx, p)
	resp.Diagnostics.Append(sliceVerdictDiagnostics(verdict)...)
}
