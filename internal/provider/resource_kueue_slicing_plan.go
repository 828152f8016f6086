package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
)

// ModifyPlan derives the levels and the queue label, shows a quota that
// will change with node_pools as unknown, and plans an update when the
// cluster's objects drifted (in_sync false in the state).
func (r *kueueSlicingResource) ModifyPlan(ctx context.Context, req resource.ModifyPlanRequest, resp *resource.ModifyPlanResponse) {
	if req.Plan.Raw.IsNull() {
		r.checkDestroy(ctx, req, &resp.Diagnostics)
		return
	}
	var plan kueueSlicingModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &plan)...)
	if resp.Diagnostics.HasError() || plan.Name.IsUnknown() || plan.SubSlicing.IsUnknown() {
		return
	}
	k, _ := plan.spec(ctx)
	plan.derive(k)
	plan.InSync = types.BoolValue(true)
	changed := true
	if req.State.Raw.IsNull() {
		plan.TPUQuota = types.Int64Unknown()
	} else {
		var state kueueSlicingModel
		resp.Diagnostics.Append(req.State.Get(ctx, &state)...)
		if !plan.NodePools.Equal(state.NodePools) {
			plan.TPUQuota = types.Int64Unknown()
		}
		changed = !plan.NodePools.Equal(state.NodePools) || !plan.Namespaces.Equal(state.Namespaces) ||
			!plan.SubSlicing.Equal(state.SubSlicing) || !plan.WorkloadTopologies.Equal(state.WorkloadTopologies) ||
			!plan.Overflow.Equal(state.Overflow)
	}
	r.checkSetup(ctx, plan, changed, &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	resp.Diagnostics.Append(resp.Plan.Set(ctx, plan)...)
}

// checkSetup reports at plan what the cluster says is wrong with the
// set-up (engine.PlanKueueSlicing), from the values known now. Problems
// are errors for a new resource or a changed configuration. Of an
// unchanged one (the cluster changed under it) they are warnings: a plan,
// a refresh and terraform destroy (which plans the configuration first)
// of the rest go on, and the apply of these objects fails with the same
// message. A cluster that cannot be read is a warning, as for a new
// gke_tpu_slice; one that cannot be read yet (made by this apply) is
// not checked.
func (r *kueueSlicingResource) checkSetup(ctx context.Context, plan kueueSlicingModel, changed bool, diags *diag.Diagnostics) {
	if r.provider == nil {
		return
	}
	e, err := r.provider.Engine()
	if err != nil {
		return // the provider's configuration is not known yet
	}
	p := kueue.KueuePlan{SubSlicing: plan.SubSlicing.ValueBool(), Overflow: plan.overflowSpec(ctx), PlannedPools: e.NodePools().Planned().Names()}
	var unknownNamespaces int
	p.NodePools, p.UnknownPools, p.PoolsUnknown = knownStrings(plan.NodePools)
	p.Namespaces, unknownNamespaces, _ = knownStrings(plan.Namespaces)
	if !plan.WorkloadTopologies.IsUnknown() {
		for _, v := range plan.WorkloadTopologies.Elements() {
			s, _ := v.(types.String)
			p.WorkloadTopologies = append(p.WorkloadTopologies, s.ValueString()) // "" when unknown
		}
	}
	tflog.Debug(ctx, "Checking the Kueue set-up at plan", map[string]any{"node_pools": p.NodePools, "unknown_node_pools": p.UnknownPools,
		"namespaces": p.Namespaces, "unknown_namespaces": unknownNamespaces, "workload_topologies": p.WorkloadTopologies})
	v := e.Kueue().PlanKueueSlicing(ctx, p)
	if v.Unreadable != nil {
		d, _ := errorShown(v.Unreadable, subjectKueue, shown{summary: "Cannot Read the Cluster"})
		diags.Append(d.then("Applying the Kueue objects will fail until that is fixed.").diagnostic(true))
		return
	}
	for _, problem := range v.Problems {
		addKueueProblem(diags, problem, changed)
	}
}

// knownStrings are the known values of a list or set, the number of its
// values not known yet, and whether it is not known at all.
func knownStrings(v interface {
	IsUnknown() bool
	Elements() []attr.Value
}) (known []string, unknown int, allUnknown bool) {
	if v.IsUnknown() {
		return nil, 0, true
	}
	for _, e := range v.Elements() {
		s, ok := e.(types.String)
		if !ok || s.IsUnknown() || s.IsNull() {
			unknown++
			continue
		}
		known = append(known, s.ValueString())
	}
	return known, unknown, false
}

// checkDestroy warns, in a plan that destroys the objects, of the
// ClusterQueue's admitted workloads: the delete refuses while there are
// any (engine.KueueWorkloadsAdmittedError).
func (r *kueueSlicingResource) checkDestroy(ctx context.Context, req resource.ModifyPlanRequest, diags *diag.Diagnostics) {
	if req.State.Raw.IsNull() || r.provider == nil {
		return
	}
	var name types.String
	diags.Append(req.State.GetAttribute(ctx, path.Root("name"), &name)...)
	e, err := r.provider.Engine()
	if err != nil || name.IsNull() || name.IsUnknown() {
		return
	}
	for _, problem := range e.Kueue().PlanKueueSlicing(ctx, kueue.KueuePlan{Destroy: true, Name: name.ValueString()}).Problems {
		addKueueProblem(diags, problem, false)
	}
}
