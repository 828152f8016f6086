package provider

import (
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
)

// addKueueProblem maps a problem of the Kueue set-up (a typed engine
// error) to a diagnostic on the attribute it is about: an error, or with
// asError false a warning that says the apply will fail with it.
func addKueueProblem(diags *diag.Diagnostics, problem error, asError bool) {
	var (
		api        *engine.KueueAPIError
		pools      *engine.KueueNodePoolError
		namespaces *engine.KueueNamespaceError
		topo       *engine.KueueTopologyError
		overflow   *engine.KueueOverflowError
		admitted   *engine.KueueWorkloadsAdmittedError
		at         path.Path
		summary    string
		detail     string
	)
	switch {
	case errors.As(problem, &api):
		summary, detail = "Kueue v0.15 or Later Not Installed", api.Detail()
	case errors.As(problem, &pools):
		at, summary, detail = path.Root("node_pools"), "Node Pools Kueue Cannot Use", pools.Detail()
	case errors.As(problem, &namespaces):
		at, summary, detail = path.Root("namespaces"), "Namespace Does Not Exist", namespaces.Detail()
	case errors.As(problem, &overflow):
		at, summary, detail = path.Root("overflow"), "Overflow Flavor Cannot Work", overflow.Detail()
	case errors.As(problem, &topo):
		at, detail = path.Root("workload_topologies").AtListIndex(topo.Index), topo.Detail()
		summary = map[engine.KueueTopologyRule]string{
			engine.KueueTopologyInvalid:    "Invalid Workload Topology",
			engine.KueueTopologySubSlicing: "Sub-Slice Topology Without Sub-Slicing",
			engine.KueueTopologyQuota:      "Workload Topology Exceeds the Queue's Quota",
			engine.KueueTopologyBlock:      "Workload Topology Does Not Fit in One Block",
		}[topo.Rule]
	case errors.As(problem, &admitted):
		summary, detail = "Queue Has Admitted Workloads", admitted.Detail()
		if !asError {
			detail += "\n\nApplying this plan will refuse to delete these objects while the workloads are admitted."
			diags.AddWarning(summary, detail)
			return
		}
	default:
		summary, detail = "Kueue Set-Up Cannot Work", problem.Error()
	}
	if !asError {
		detail += "\n\nThis configuration has not changed (the cluster changed under it), so this is a warning: applying these objects fails until it is fixed."
	}
	noAttribute := len(at.Steps()) == 0
	switch {
	case noAttribute && asError:
		diags.AddError(summary, detail)
	case noAttribute:
		diags.AddWarning(summary, detail)
	case asError:
		diags.AddAttributeError(at, summary, detail)
	default:
		diags.AddAttributeWarning(at, summary, detail)
	}
}

// applyError maps an error of apply: the problems of a set-up refused
// before any object was applied, a cluster that cannot be read, or
// another failure.
func applyError(diags *diag.Diagnostics, err error) {
	var setup *engine.KueueSetupError
	var access *engine.ClusterAccessError
	switch {
	case errors.As(err, &setup):
		for _, problem := range setup.Problems {
			addKueueProblem(diags, problem, true)
		}
	case errors.As(err, &access):
		diags.AddError("Cannot Read the Cluster", err.Error())
	default:
		diags.AddError("Cannot Apply Kueue Objects", err.Error())
	}
}

// deleteError maps an error of the delete: admitted workloads that
// stopped it before anything was deleted, or another failure.
func deleteError(diags *diag.Diagnostics, err error) {
	var admitted *engine.KueueWorkloadsAdmittedError
	if errors.As(err, &admitted) {
		addKueueProblem(diags, admitted, true)
		return
	}
	diags.AddError("Cannot Delete Kueue Objects", err.Error())
}
