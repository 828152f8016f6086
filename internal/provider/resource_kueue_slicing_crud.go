package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
)

// apply applies the objects with the quota of the model's node pools,
// drops the LocalQueues of namespaces no longer listed, and waits for
// Kueue to report the ClusterQueue Active (an InactiveQueueError when ctx,
// bounded by the create or update timeout, ends first: the model is then
// set, with in_sync false).
func (r *kueueSlicingResource) apply(ctx context.Context, e *engine.Engine, m *kueueSlicingModel, dropped []string) error {
	// The quota is the chips of the node pools, read first.
	k, _ := m.spec(ctx)
	var err error
	if k.TPUQuota, err = e.Kueue().ApplyKueueSlicing(ctx, k, dropped); err != nil {
		return err
	}
	m.derive(k)
	m.TPUQuota, m.InSync = types.Int64Value(k.TPUQuota), types.BoolValue(true)
	if err := e.Kueue().AwaitActive(ctx, k); err != nil {
		m.InSync = types.BoolValue(false)
		return err
	}
	return nil
}

func (r *kueueSlicingResource) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	c := begin[kueueSlicingModel](ctx, r.provider, req.Plan, &resp.Diagnostics, opCreate, defaultKueueTimeout)
	if c == nil {
		return
	}
	defer c.done()
	m := c.Model
	if err := r.apply(c.Ctx, c.Engine, &m, nil); err != nil {
		if errors.Is(err, kueue.ErrKueueSetup) {
			applyError(&resp.Diagnostics, err) // nothing was applied
			return
		}
		// Some objects may exist already: recorded (tainted), so that a
		// destroy or the next apply deals with them.
		k, _ := m.spec(ctx)
		m.derive(k)
		m.InSync = types.BoolValue(false)
		if m.TPUQuota.IsUnknown() {
			m.TPUQuota = types.Int64Value(0)
		}
		resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
		setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, r.provider, nil, m.Name.ValueString()), &resp.Diagnostics)
		if c.timedOut(ctx) {
			stands := "were applied in part"
			if isA[*kueue.InactiveQueueError](err) {
				stands = "exist (the ClusterQueue is not Active)"
			}
			addCreateTimedOut(&resp.Diagnostics, err, subjectKueue, c.timeout, timedOutCreate{
				object: "The Kueue objects of " + m.Name.ValueString(), stands: stands,
				keep:   "the next apply then applies them again in place and waits for the ClusterQueue to be Active (within timeouts.update)",
				plural: true,
			})
			return
		}
		applyError(&resp.Diagnostics, err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
	setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, r.provider, nil, m.Name.ValueString()), &resp.Diagnostics)
}

func (r *kueueSlicingResource) Read(ctx context.Context, req resource.ReadRequest, resp *resource.ReadResponse) {
	c := begin[kueueSlicingModel](ctx, r.provider, req.State, &resp.Diagnostics, opNone, 0)
	if c == nil {
		return
	}
	m := c.Model
	k, _ := m.spec(ctx)
	k.TPUQuota = m.TPUQuota.ValueInt64()
	drift, err := c.Engine.Kueue().KueueDrift(ctx, k)
	if err != nil {
		addError(&resp.Diagnostics, err, subjectKueue, "Cannot Read Kueue Objects")
		return
	}
	m.InSync = types.BoolValue(len(drift) == 0)
	if len(drift) > 0 {
		tflog.Info(ctx, "Kueue objects drifted", map[string]any{"drift": strings.Join(drift, "; ")})
		resp.Diagnostics.AddWarning("Kueue Objects Changed Outside Terraform",
			fmt.Sprintf("%s. The next apply restores them.", strings.Join(drift, "; ")))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
	setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, r.provider, req.Identity, m.Name.ValueString()), &resp.Diagnostics)
}

func (r *kueueSlicingResource) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	c := begin[kueueSlicingModel](ctx, r.provider, req.Plan, &resp.Diagnostics, opUpdate, defaultKueueTimeout)
	if c == nil {
		return
	}
	defer c.done()
	var state kueueSlicingModel
	resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m := c.Model
	// Set even when Terraform keeps none (before 1.12): the framework wants one.
	setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, r.provider, req.Identity, m.Name.ValueString()), &resp.Diagnostics)
	_, now := m.spec(ctx)
	_, before := state.spec(ctx)
	var dropped []string
	for _, ns := range before {
		if !slices.Contains(now, ns) {
			dropped = append(dropped, ns)
		}
	}
	if err := r.apply(c.Ctx, c.Engine, &m, dropped); err != nil {
		if isA[*kueue.InactiveQueueError](err) {
			// Applied, but not admitting: the state says so (in_sync
			// false), and the next apply waits again.
			resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
		}
		applyError(&resp.Diagnostics, err)
		return
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *kueueSlicingResource) Delete(ctx context.Context, req resource.DeleteRequest, resp *resource.DeleteResponse) {
	c := begin[kueueSlicingModel](ctx, r.provider, req.State, &resp.Diagnostics, opDelete, defaultKueueTimeout)
	if c == nil {
		return
	}
	defer c.done()
	k, _ := c.Model.spec(ctx)
	if err := c.Engine.Kueue().DeleteKueueSlicing(c.Ctx, k); err != nil {
		deleteError(&resp.Diagnostics, err)
	}
}

// ImportState takes the name and reads the objects back: the node pools
// (recorded on the ClusterQueue) and the quota, sub-slicing from the
// Topology, and the namespaces of the LocalQueues.
func (r *kueueSlicingResource) ImportState(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if req.ID == "" {
		var ok bool
		if req.ID, ok = nameFromIdentity(ctx, r.provider, req, resp); !ok {
			return
		}
	}
	if !dnsLabelRE.MatchString(req.ID) || len(req.ID) > 63 {
		resp.Diagnostics.AddError("Invalid Import ID", fmt.Sprintf("%q is not a gke_kueue_slicing name (a DNS label of at most 63 characters)", req.ID))
		return
	}
	e, diags := engineOf(r.provider)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	k, err := e.Kueue().ReadKueueSlicing(ctx, req.ID)
	if err != nil {
		addError(&resp.Diagnostics, err, subjectKueue, "Cannot Import Kueue Objects")
		return
	}
	pools := make([]attr.Value, len(k.NodePools))
	for i, p := range k.NodePools {
		pools[i] = types.StringValue(p)
	}
	namespaces := make([]attr.Value, len(k.Namespaces))
	for i, ns := range k.Namespaces {
		namespaces[i] = types.StringValue(ns)
	}
	m := kueueSlicingModel{
		Name:       types.StringValue(k.Name),
		NodePools:  types.ListValueMust(types.StringType, pools),
		Namespaces: types.SetValueMust(types.StringType, namespaces),
		SubSlicing: types.BoolValue(k.SubSlicing),
		TPUQuota:   types.Int64Value(k.TPUQuota),
		InSync:     types.BoolValue(true),
		// Not recorded in the cluster: the configuration's value is taken
		// by the next apply.
		WorkloadTopologies: types.ListNull(types.StringType),
		Overflow:           overflowValue(k.Overflow),
		Timeouts:           timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType})},
	}
	m.derive(k)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}
