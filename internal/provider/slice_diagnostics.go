package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
)

// slicePlanNote is what a problem of a plan's verdict on a new slice
// means for the apply: a warning or an error, and the words after the
// cause. The cause itself shows as errorTable says.
type slicePlanNote struct {
	warning bool
	then    string
}

// slicePlanNotes are the notes of the problems, by problem. A problem an
// apply may yet escape is a warning (terraform destroy plans the
// configuration first, and a slice that cannot be created must not stop
// the destroy of the rest); one that no apply can fix is an error.
var slicePlanNotes = map[tpuslice.NewSliceProblem]slicePlanNote{
	tpuslice.ClusterUnreadable: {warning: true, then: "Creating this slice will fail until that is fixed."},
	tpuslice.VersionUnknown:    {warning: true, then: "The cluster's version could not be checked against this topology."},
	// An error: the cluster cannot form this topology at all.
	tpuslice.VersionTooOld: {then: "To destroy the rest of the configuration before upgrading, remove this slice from it, or run terraform destroy -refresh=false."},
	// Errors: the configuration must change, and no apply can fix it (or
	// pools must be made first).
	tpuslice.DeviceAccessMismatch: {},
	tpuslice.PartitionsInvalid:    {},
	tpuslice.SelectorBlockUnknown: {},
	tpuslice.PartitionsUnusable: {warning: true,
		then: "Creating this slice will be refused (before a Slice is made) unless they are freed before the apply."},
	tpuslice.SelectionNotChecked: {warning: true,
		then: "The selection could not be checked at plan; the apply selects the partitions, and fails if it cannot."},
	tpuslice.SelectionUnmet: {warning: true,
		then: "Creating this slice will fail unless partitions are freed or added before the apply."},
}

// sliceVerdictDiagnostics are the diagnostics of a plan's verdict on a
// new slice: none for NoProblem.
func sliceVerdictDiagnostics(v tpuslice.NewSliceVerdict) diag.Diagnostics {
	d, ok := verdictShown(v, subjectSlice)
	if !ok {
		return nil
	}
	note := slicePlanNotes[v.Problem]
	return diag.Diagnostics{d.then(note.then).diagnostic(note.warning)}
}

// The summaries of a slice's failures that the table does not know: a
// slice made that did not become ready, and an update of the device
// access refused.
const (
	sliceNotReady    = "Slice Did Not Become Ready"
	accessNotOffered = "Device Access Not Offered by the Partitions"
)
