package provider

import (
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
)

// addKueueProblem adds a problem of the Kueue set-up (a typed engine
// error, shown as errorTable says) to diags: an error, or with asError
// false a warning that says the apply will fail with it.
func addKueueProblem(diags *diag.Diagnostics, problem error, asError bool) {
	d, _ := errorShown(problem, subjectKueue, shown{summary: kueueSetupSummary})
	if asError {
		diags.Append(d.diagnostic(false))
		return
	}
	then := "This configuration has not changed (the cluster changed under it), so this is a warning: applying these objects fails until it is fixed."
	var admitted *kueue.KueueWorkloadsAdmittedError
	if errors.As(problem, &admitted) {
		then = "Applying this plan will refuse to delete these objects while the workloads are admitted."
	}
	diags.Append(d.then(then).diagnostic(true))
}

// applyError adds an error of apply: the problems of a set-up refused
// before any object was applied, a cluster that cannot be read, or
// another failure.
func applyError(diags *diag.Diagnostics, err error) {
	addError(diags, err, subjectKueue, "Cannot Apply Kueue Objects")
}

// deleteError adds an error of the delete: admitted workloads that
// stopped it before anything was deleted, or another failure.
func deleteError(diags *diag.Diagnostics, err error) {
	addError(diags, err, subjectKueue, "Cannot Delete Kueue Objects")
}
