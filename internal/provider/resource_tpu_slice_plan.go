package provider

import (
	"context"
	"fmt"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
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
		if err := (tpuslice.PartitionSelector{NodePools: names}).Check(); err != nil {
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

// replace plans the replacement of the slice under the attribute that
// forces it: its plan's state, and the partitions a selector chooses
// again, become unknown.
func replace(resp *resource.ModifyPlanResponse, m *tpuSliceModel, attr string) {
	m.State, m.Message, m.Ready, m.Conditions = types.StringUnknown(), types.StringUnknown(), types.BoolUnknown(), types.ListUnknown(conditionType)
	if m.PartitionSelector != nil {
		m.PartitionIDs = types.ListUnknown(types.StringType)
	}
	resp.RequiresReplace = append(resp.RequiresReplace, path.Root(attr))
}

// selectorQuestion is what the plan of an existing slice asks of a
// partition_selector that differs from the state's: whether the slice's
// partitions satisfy it. The slice is kept while they do: they stand for
// its choice, and the apply only records it. That covers a selector where
// the state has none (after an import, or when the configuration moves
// from listing partitions to selecting them) and a selector rewritten to
// one that still holds (node_pools replaced by the workload_policy that
// places the same pools, say). Otherwise the slice is replaced, to choose
// again. nil when there is nothing to ask (unchanged, or back to listed
// partitions, which partition_ids judges).
func selectorQuestion(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m tpuSliceModel) *tpuslice.SelectorQuestion {
	var prior, planned types.Object
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("partition_selector"), &prior)...)
	resp.Diagnostics.Append(req.Plan.GetAttribute(ctx, path.Root("partition_selector"), &planned)...)
	if resp.Diagnostics.HasError() || planned.Equal(prior) || planned.IsNull() {
		return nil
	}
	var ids []string
	resp.Diagnostics.Append(m.PartitionIDs.ElementsAs(ctx, &ids, false)...)
	sel, known := m.selector()
	q := &tpuslice.SelectorQuestion{Name: m.Name.ValueString(), Topology: m.Topology.ValueString(), PartitionIDs: ids, Unrecorded: prior.IsNull(),
		Unchecked: resp.Diagnostics.HasError() || !known || sel == nil || m.Topology.IsUnknown()}
	if sel != nil {
		q.Selector = *sel
	}
	return q
}

// planExisting applies the plan's verdicts on an existing slice: one that
// cannot recover in place (FAILED, which the controller does not re-form,
// or being deleted) is replaced, and a selector chooses its partitions
// again; a changed selector keeps it or replaces it (selectorQuestion).
func planExisting(ctx context.Context, resp *resource.ModifyPlanResponse, m *tpuSliceModel, q tpuslice.SlicePlan, got tpuslice.SlicePlanned) {
	if got.Existing.Replace {
		tflog.Info(ctx, "Planning the replacement of a broken slice", map[string]any{"slice": q.ID, "why": got.Existing.Why})
		replace(resp, m, "state")
		resp.Diagnostics.AddWarning("Slice Will Be Replaced", got.Existing.Why+": it cannot recover in place, so this plan replaces it (delete, then create).")
		return
	}
	if got.Selector == nil {
		return
	}
	sq, check, name := q.Selector, got.Selector, m.Name.ValueString()
	warnSelector := func(detail string) {
		resp.Diagnostics.AddAttributeWarning(path.Root("partition_selector"), "Partition Selector Not Checked", detail)
	}
	if got.Replaces(q) {
		replace(resp, m, "partition_selector")
	}
	switch {
	case check.Verdict == tpuslice.SelectorHolds:
		tflog.Info(ctx, "The slice's partitions satisfy its partition selector; recording the selector", map[string]any{"slice": name})
	case sq.Unchecked && sq.Unrecorded:
		warnSelector("The slice's partitions cannot be checked against partition_selector yet (some of its values are known only after apply, " +
			"or the provider's configuration is not): the slice is kept, and this apply records the selector.")
	case sq.Unchecked:
		// another selector, not checkable now: it chooses again
	case check.Verdict == tpuslice.SelectorUnknown && sq.Unrecorded:
		warnSelector(fmt.Sprintf("The partitions of slice %s cannot be checked against partition_selector now (%s): the slice is kept, and this "+
			"apply records the selector. Plan again once the cluster can be read to check them.", name, check.Reason))
	case check.Verdict == tpuslice.SelectorUnknown:
		resp.Diagnostics.AddAttributeWarning(path.Root("partition_selector"), "Slice Will Be Replaced", fmt.Sprintf(
			"partition_selector of slice %s changed, and its partitions cannot be checked against the new one now (%s), "+
				"so this plan replaces the slice to choose them again. Plan again once the cluster can be read to keep it.", name, check.Reason))
	default:
		resp.Diagnostics.AddAttributeWarning(path.Root("partition_selector"), "Slice Will Be Replaced", fmt.Sprintf(
			"The partitions of slice %s do not satisfy partition_selector (%s), so this plan replaces the slice to choose "+
				"them again. To keep it, widen the selector or list its partitions in partition_ids.", name, check.Reason))
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

// ModifyPlan derives the workload wiring from the topology and plans the
// slice in one call of the engine (tpuslice.Slices.Plan): an existing
// slice that cannot recover in place or whose new selector its partitions
// do not satisfy is replaced; listed partitions that another slice of the
// plan claims are refused (tpuslice.PartitionClaimedError); a new slice's
// checks (cluster access, the version, its partitions or selection) are
// reported; a changed
// device_access is checked against the partitions' nodes; maintenance on
// their sub-blocks is warned of. The choice of partitions is made at
// apply.
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
	if r.provider != nil {
		r.plan(ctx, req, resp, &m)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if reflect.DeepEqual(m, planned) {
		return // nothing changed: the plan stands as Terraform proposed it (most plans of an existing slice)
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, m)...)
}

// plan asks the engine what the slice's plan needs, and applies its
// verdicts to the plan m and its diagnostics.
func (r *tpuSliceResource) plan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m *tpuSliceModel) {
	existing := !req.State.Raw.IsNull()
	q := tpuslice.SlicePlan{}
	if existing {
		var id types.String
		resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("id"), &id)...)
		q.ID, q.Reselects = id.ValueString(), m.PartitionSelector != nil
		q.Selector = selectorQuestion(ctx, req, resp, *m)
		q.Access = accessChange(ctx, req, resp, *m)
	} else {
		q.New = newSlicePlan(ctx, *m, r.provider)
	}
	if !m.PartitionIDs.IsUnknown() {
		var ids []string
		if diags := m.PartitionIDs.ElementsAs(ctx, &ids, false); !diags.HasError() {
			q.Topology, q.PartitionIDs = m.Topology.ValueString(), ids
			q.Maintenance = !m.PartitionIDs.IsNull() && len(ids) > 0
		}
	}
	if resp.Diagnostics.HasError() {
		return
	}
	e, err := r.provider.Engine()
	var got tpuslice.SlicePlanned
	switch {
	case err == nil:
		got = e.Slices().Plan(ctx, q)
	case existing && q.Selector != nil:
		// The provider's configuration is not known yet: nothing is
		// checked, and a changed selector cannot be either.
		q.Selector.Unchecked = true
		got.Selector = &tpuslice.SelectorCheck{Verdict: tpuslice.SelectorUnknown}
	default:
		return
	}
	if got.Claimed != nil {
		// Another slice of this plan claims one of its partitions; a new
		// slice's own checks are reported beside it, so that one plan
		// names every fix.
		addError(&resp.Diagnostics, got.Claimed, subjectSlice, "Cannot Plan Slice")
		if !existing {
			resp.Diagnostics.Append(sliceVerdictDiagnostics(got.New)...)
		}
		return
	}
	if existing {
		planExisting(ctx, resp, m, q, got)
		planResume(ctx, req, resp, m)
	} else {
		resp.Diagnostics.Append(sliceVerdictDiagnostics(got.New)...)
		if resp.Diagnostics.HasError() {
			return
		}
	}
	if m.PartitionIDs.IsUnknown() {
		return // a replacement chooses the partitions again
	}
	if isA[*tpuslice.DeviceAccessError](got.AccessErr) {
		resp.Diagnostics.Append(sliceVerdictDiagnostics(tpuslice.NewSliceVerdict{Problem: tpuslice.DeviceAccessMismatch, Err: got.AccessErr})...)
	}
	warnMaintenance(ctx, resp, got)
}

// accessChange is the device_access to check at plan (planChecks): one
// changed, with the slice's partitions and topology known; nil otherwise.
func accessChange(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse, m tpuSliceModel) *clusterread.DeviceAccess {
	var was types.String
	resp.Diagnostics.Append(req.State.GetAttribute(ctx, path.Root("device_access"), &was)...)
	if m.DeviceAccess.IsUnknown() || m.DeviceAccess.Equal(was) || m.PartitionIDs.IsUnknown() || m.Topology.IsUnknown() {
		return nil
	}
	access := m.access()
	return &access
}

// newSlicePlan is what the plan of a new slice checks: a cluster whose
// Kubernetes API cannot be read (wrong CA, credentials, permissions, no
// Slice API), and a selection the existing pools cannot meet. Warnings,
// not errors: terraform destroy plans the configuration first (its
// pre-destroy refresh), and a slice that cannot be created must not stop
// the destroy of the rest. The create fails with the same cause.
func newSlicePlan(ctx context.Context, m tpuSliceModel, c *configured) tpuslice.NewSlicePlan {
	p := tpuslice.NewSlicePlan{}
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
	if e, err := c.Engine(); err == nil {
		p.PlannedBlocks = e.NodePools().Planned().Blocks()
	}
	return p
}
