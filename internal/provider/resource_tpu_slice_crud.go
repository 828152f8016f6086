package provider

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
)

func (r *tpuSliceResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	c := begin[tpuSliceModel](ctx, r.provider, req.Plan, &resp.Diagnostics, opCreate, defaultSliceCreateTimeout)
	if c == nil {
		return
	}
	defer c.done()
	m := c.Model
	sreq := tpuslice.SliceRequest{
		Name: m.Name.ValueString(), Type: m.Type.ValueString(), Topology: m.Topology.ValueString(),
		RetryOnFailure: m.RetryOnFailure.ValueBool(), AllowDegraded: m.AllowDegraded.ValueBool(), DeviceAccess: m.access(),
	}
	if !m.PartitionIDs.IsUnknown() {
		resp.Diagnostics.Append(m.PartitionIDs.ElementsAs(ctx, &sreq.PartitionIDs, false)...)
	} else if sel, known := m.selector(); known {
		// The engine's cluster's node pools resolve a reservation block
		// name.
		sreq.Selector = sel
	}
	if resp.Diagnostics.HasError() {
		return
	}
	s, err := c.Engine.Slices().CreateSlice(c.Ctx, sreq, func(ids []string) {
		// Recorded before the wait: a failure or timeout leaves the
		// slice in the state (tainted), so the next apply replaces it; an
		// interrupt leaves it untainted (recordInterruptedCreate).
		m.ID, m.PartitionIDs = types.StringValue(sreq.Name), idsList(ids)
		m.State, m.Message, m.Ready = types.StringValue(""), types.StringValue(""), types.BoolValue(false)
		m.Conditions = types.ListValueMust(conditionType, nil)
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
		setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, r.provider, nil, sreq.Name), &resp.Diagnostics)
	})
	if err != nil && refused(err) {
		// Refused before the slice was made.
		addError(&resp.Diagnostics, err, subjectSlice, sliceNotReady)
		return
	}
	if s != nil {
		m.setStatus(s)
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
		if s.Adopted != "" {
			resp.Diagnostics.AddWarning("Existing Slice Adopted", s.Adopted)
		}
	}
	if err != nil && !m.ID.IsUnknown() && interrupted(ctx) && r.recordInterruptedCreate(ctx, c.Engine, m, resp) {
		return
	}
	if err != nil && !m.ID.IsUnknown() && c.timedOut(ctx) {
		state := ""
		if s != nil {
			state = s.State
		}
		addCreateTimedOut(&resp.Diagnostics, err, subjectSlice, c.timeout, timedOutCreate{
			object: "Slice " + m.ID.ValueString(), stands: existsAs(state),
			keep: "the next apply then waits for it to become ACTIVE (within timeouts.create, which you may raise) instead of recreating it",
		})
		return
	}
	if err != nil {
		addError(&resp.Diagnostics, err, subjectSlice, sliceNotReady)
	}
}

// recordInterruptedCreate records a slice whose create was interrupted
// (Ctrl-C) while it formed, by the interrupted-create protocol: as it is
// now, not tainted, so that the next apply waits for it (see ModifyPlan)
// instead of recreating it. It says whether it did.
func (r *tpuSliceResource) recordInterruptedCreate(ctx context.Context, e *engine.Engine, m tpuSliceModel, resp *resource.CreateResponse) bool {
	_, warned := recordInterrupted(ctx, "Slice", m.ID.ValueString(), func(rctx context.Context) (kernel.Progress, error) {
		s, err := e.Slices().ReadSlice(rctx, m.ID.ValueString())
		if err != nil {
			return kernel.Progress{}, err
		}
		progress := tpuslice.Progress(s.State, s.RetryOnFailure)
		if s.Deleting {
			progress.CanFinish = false
		}
		if progress.CanFinish {
			m.setStatus(s)
			resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
		}
		return progress, nil
	}, &resp.Diagnostics)
	return warned
}

func (r *tpuSliceResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	c := begin[tpuSliceModel](ctx, r.provider, req.State, &resp.Diagnostics, opNone, 0)
	if c == nil {
		return
	}
	m := c.Model
	var opts []tpuslice.SliceReadOption
	if m.DeviceAccess.IsNull() || m.DeviceAccess.IsUnknown() {
		// Imported: the access the partitions' nodes offer.
		opts = append(opts, tpuslice.WithDeviceAccess)
	}
	s, err := c.Engine.Slices().ReadSlice(ctx, m.ID.ValueString(), opts...)
	if errors.Is(err, kernel.ErrNotFound) {
		// Terraform shows it in the plan as a create: no warning needed.
		tflog.Info(ctx, "Slice gone; removing it from the state", map[string]any{"slice": m.ID.ValueString()})
		resp.State.RemoveResource(ctx)
		setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, r.provider, req.Identity, m.ID.ValueString()), &resp.Diagnostics) // the framework wants one even so
		return
	}
	if err != nil {
		addError(&resp.Diagnostics, err, subjectSlice, "Cannot Read Slice")
		return
	}
	if s.KueueWorkload != "" {
		// Ours is gone and Kueue made one of the same name: not ours.
		resp.Diagnostics.AddWarning("Slice Now Owned by Kueue", kueueOwnedWarning(s))
		resp.State.RemoveResource(ctx)
		setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, r.provider, req.Identity, s.Name), &resp.Diagnostics)
		return
	}
	m.Name, m.Type, m.Topology = types.StringValue(s.Name), types.StringValue(s.Type), types.StringValue(s.Topology)
	m.PartitionIDs = idsList(s.PartitionIDs)
	m.RetryOnFailure = types.BoolValue(s.RetryOnFailure)
	for _, b := range []*types.Bool{&m.AllowDegraded, &m.ForceRemoveFinalizer} {
		if b.IsNull() || b.IsUnknown() {
			*b = types.BoolValue(false)
		}
	}
	if m.DeviceAccess.IsNull() || m.DeviceAccess.IsUnknown() {
		m.DeviceAccess = types.StringValue(string(s.DeviceAccess))
	}
	m.setStatus(s)
	m.derive()
	if m.Timeouts.IsNull() {
		m.Timeouts = timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType})}
	}
	switch s.State {
	case clusterread.SliceActiveDegraded, clusterread.SliceFailed, clusterread.SliceCreationFailed:
		resp.Diagnostics.AddWarning("Slice Not Healthy", fmt.Sprintf("Slice %s is %s: %s", s.Name, s.State, s.Message))
	}
	setRefreshed(ctx, &resp.State, c.Model, m, &resp.Diagnostics)
	setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, r.provider, req.Identity, s.Name), &resp.Diagnostics)
}

// Update changes what can change in place: the retry-on-failure
// annotation, and the provider-side settings. A slice whose create was
// interrupted is first waited for, within the create timeout; the update's
// own timeout starts after that wait, so that the wait cannot use it up.
func (r *tpuSliceResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var state tpuSliceModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	// Set even when Terraform keeps none (before 1.12): the framework wants one.
	setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, r.provider, req.Identity, state.ID.ValueString()), &resp.Diagnostics)
	if state.forming() {
		wait := begin[tpuSliceModel](ctx, r.provider, req.Plan, &resp.Diagnostics, opCreate, defaultSliceCreateTimeout)
		if wait == nil {
			return
		}
		plan := wait.Model
		s, err := wait.Engine.Slices().ResumeSlice(wait.Ctx, state.ID.ValueString(), plan.AllowDegraded.ValueBool(), plan.RetryOnFailure.ValueBool())
		wait.done()
		if s != nil {
			state.setStatus(s)
			resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
		}
		if err != nil {
			addError(&resp.Diagnostics, err, subjectSlice, sliceNotReady)
			return
		}
	}
	c := begin[tpuSliceModel](ctx, r.provider, req.Plan, &resp.Diagnostics, opUpdate, defaultSliceUpdateTimeout)
	if c == nil {
		return
	}
	defer c.done()
	plan := c.Model
	// A changed access is checked first; retry_on_failure is written only
	// when nothing failed before it.
	u := tpuslice.SliceUpdate{Name: state.ID.ValueString(), Topology: state.Topology.ValueString()}
	if !plan.DeviceAccess.Equal(state.DeviceAccess) {
		resp.Diagnostics.Append(state.PartitionIDs.ElementsAs(ctx, &u.PartitionIDs, false)...)
		access := plan.access()
		u.Access = &access
	}
	if !plan.RetryOnFailure.Equal(state.RetryOnFailure) && !resp.Diagnostics.HasError() {
		retry := plan.RetryOnFailure.ValueBool()
		u.RetryOnFailure = &retry
	}
	if err := c.Engine.Slices().UpdateSlice(c.Ctx, u); err != nil {
		// What the table does not know is the new access, refused.
		d, _ := errorShown(err, subjectSlice, shown{at: path.Root("device_access"), summary: accessNotOffered})
		resp.Diagnostics.Append(d.diagnostic(false))
	}
	if resp.Diagnostics.HasError() {
		return
	}
	state.RetryOnFailure, state.AllowDegraded, state.ForceRemoveFinalizer, state.Timeouts = plan.RetryOnFailure, plan.AllowDegraded, plan.ForceRemoveFinalizer, plan.Timeouts
	state.DeviceAccess = plan.DeviceAccess
	state.derive()
	// A selector recorded for partitions that satisfy it (planSelector).
	state.PartitionSelector = plan.PartitionSelector
	resp.Diagnostics.Append(resp.State.Set(ctx, state)...)
}

func (r *tpuSliceResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	c := begin[tpuSliceModel](ctx, r.provider, req.State, &resp.Diagnostics, opDelete, defaultSliceDeleteTimeout)
	if c == nil {
		return
	}
	defer c.done()
	deleted, err := c.Engine.Slices().DeleteSlice(c.Ctx, c.Model.ID.ValueString(), c.Model.ForceRemoveFinalizer.ValueBool())
	if err != nil {
		addError(&resp.Diagnostics, err, subjectSlice, "Cannot Delete Slice")
	}
	switch {
	case deleted.KueueWorkload != "":
		resp.Diagnostics.AddWarning("Slice Owned by Kueue Left in Place", deleted.Message)
	case deleted.FinalizerRemoved:
		resp.Diagnostics.AddWarning("Slice Finalizer Removed", deleted.Message)
	}
}

// ImportState takes the slice name, or an identity.
func (r *tpuSliceResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID == "" {
		var ok bool
		if req.ID, ok = nameFromIdentity(ctx, r.provider, req, resp); !ok {
			return
		}
	}
	if !sliceNameRE.MatchString(req.ID) {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("%q is not a Slice name (a DNS label)", req.ID))
		return
	}
	if e, err := r.provider.Engine(); err == nil {
		if s, err := e.Slices().ReadSlice(ctx, req.ID); err == nil && s.KueueWorkload != "" {
			resp.Diagnostics.AddError("Cannot Import a Slice Kueue Manages", clusterread.KueueOwnedError(s).Error())
			return
		}
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), req.ID)...)
}

// kueueOwnedWarning says that a Slice in the state turned out to be one
// Kueue made, and is dropped from the state without being touched.
func kueueOwnedWarning(s *clusterread.Slice) string {
	return fmt.Sprintf("Slice %s is now one that Kueue's slice admission check created for workload %s: the Slice this resource "+
		"made is gone. It is removed from the state and left alone; the next apply creates this slice again and fails while Kueue's "+
		"Slice holds the name, so rename this resource's slice.", s.Name, s.KueueWorkload)
}
