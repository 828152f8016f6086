package provider

import (
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
)

// slicePhase is when the engine answered about a slice: at plan, of what
// the apply will meet; at apply, of what it met.
type slicePhase int

const (
	atPlan slicePhase = iota
	atApply
)

// sliceFailure is a kind of failure the engine reports of a slice: at
// plan as a verdict (verdictFailure), at apply as a typed error
// (applyFailure). sliceDiagnostics shows each kind in each phase.
type sliceFailure int

const (
	// sliceFine: nothing to report.
	sliceFine sliceFailure = iota
	// sliceClusterUnreadable: the cluster's Kubernetes API cannot be read.
	sliceClusterUnreadable
	// sliceVersionUnknown: the cluster's GKE version could not be read.
	sliceVersionUnknown
	// sliceVersionTooOld: the cluster's version cannot form the topology.
	sliceVersionTooOld
	// sliceAccessMismatch: the partitions' nodes do not offer the device
	// access.
	sliceAccessMismatch
	// slicePartitionsUnusable: listed partitions are held by another
	// slice.
	slicePartitionsUnusable
	// slicePartitionsInvalid: listed partitions are of another shape, or
	// in more than one reservation block.
	slicePartitionsInvalid
	// sliceSelectorBlockUnknown: partition_selector.block names a block
	// that no node pool targets.
	sliceSelectorBlockUnknown
	// sliceSelectionNotChecked: the selection could not be checked.
	sliceSelectionNotChecked
	// sliceSelectionUnmet: the partitions could not be selected.
	sliceSelectionUnmet
	// sliceNotFormable: the create was refused before a Slice was made.
	sliceNotFormable
	// sliceNameTakenByKueue: a Slice of the name is one Kueue manages.
	sliceNameTakenByKueue
	// sliceNameTaken: a Slice of the name exists and differs.
	sliceNameTaken
	// sliceBeingCreated: a Slice of the name is another creator's, whose
	// create is still at work.
	sliceBeingCreated
	// sliceNotReady: the slice was made and did not become ready.
	sliceNotReady
)

// sliceDiagnostic is how one kind of failure shows in one phase.
type sliceDiagnostic struct {
	// warning makes it a warning rather than an error.
	warning bool
	// attribute is the root attribute it points at; empty for none.
	attribute string
	summary   string
	// detail is the cause as the engine gave it; nil: the error's text.
	detail func(error) string
	// then follows the cause, after a blank line: what it means for the
	// apply.
	then string
}

// sliceDiagnosticTable shows each kind of failure, by phase. At plan, a
// failure that an apply may yet escape is a warning (terraform destroy
// plans the configuration first, and a slice that cannot be created must
// not stop the destroy of the rest); one that no apply can fix is an
// error.
var sliceDiagnosticTable = map[sliceFailure]map[slicePhase]sliceDiagnostic{
	sliceClusterUnreadable: {
		atPlan:  {warning: true, summary: "Cannot Read the Cluster", then: "Creating this slice will fail until that is fixed."},
		atApply: {summary: "Cannot Read the Cluster"},
	},
	sliceVersionUnknown: {
		atPlan: {warning: true, summary: "Cannot Read the Cluster", then: "The cluster's version could not be checked against this topology."},
	},
	sliceVersionTooOld: {
		// An error: the cluster cannot form this topology at all.
		atPlan: {attribute: "topology", summary: "Cluster Version Too Old",
			then: "To destroy the rest of the configuration before upgrading, remove this slice from it, or run terraform destroy -refresh=false."},
	},
	sliceAccessMismatch: {
		// An error: the configuration must change, and no apply can fix it.
		atPlan:  {attribute: "device_access", summary: "Device Access Not Offered by the Partitions"},
		atApply: {attribute: "device_access", summary: "Device Access Not Offered by the Partitions"},
	},
	slicePartitionsUnusable: {
		atPlan: {warning: true, attribute: "partition_ids", summary: "Partitions Cannot Be Used",
			then: "Creating this slice will be refused (before a Slice is made) unless they are freed before the apply."},
	},
	slicePartitionsInvalid: {
		// An error: the configuration must change, and no apply can fix it.
		atPlan: {attribute: "partition_ids", summary: "Partitions Cannot Form This Slice"},
	},
	sliceSelectorBlockUnknown: {
		// An error: the configuration must change, or pools be made first.
		atPlan: {attribute: "partition_selector", summary: "No Node Pool Targets the Reservation Block"},
	},
	sliceSelectionNotChecked: {
		atPlan: {warning: true, attribute: "partition_selector", summary: "Partition Selection Not Checked",
			then: "The selection could not be checked at plan; the apply selects the partitions, and fails if it cannot."},
	},
	sliceSelectionUnmet: {
		atPlan: {warning: true, attribute: "partition_selector", summary: "Cannot Select Partitions",
			then: "Creating this slice will fail unless partitions are freed or added before the apply."},
		atApply: {attribute: "partition_selector", summary: "Cannot Select Partitions", detail: selectionDetail},
	},
	sliceNotFormable: {
		atApply: {summary: "Slice Cannot Be Formed", detail: notFormableDetail},
	},
	sliceNameTakenByKueue: {
		atApply: {attribute: "name", summary: "Slice Name Taken by Kueue"},
	},
	sliceNameTaken: {
		atApply: {attribute: "name", summary: "Slice Name Taken", detail: sliceExistsDetail},
	},
	sliceBeingCreated: {
		atApply: {attribute: "name", summary: "Slice Being Created Elsewhere"},
	},
	sliceNotReady: {
		atApply: {summary: "Slice Did Not Become Ready"},
	},
}

// sliceDiagnostics is the one mapping of the engine's answers about a
// slice to diagnostics: failure f, with cause err, as phase ph shows it.
// A kind the phase does not show, and sliceFine, give none.
func sliceDiagnostics(ph slicePhase, f sliceFailure, err error) diag.Diagnostics {
	var diags diag.Diagnostics
	d, ok := sliceDiagnosticTable[f][ph]
	if !ok || err == nil {
		return diags
	}
	detail := err.Error()
	if d.detail != nil {
		detail = d.detail(err)
	}
	if d.then != "" {
		detail += "\n\n" + d.then
	}
	switch {
	case d.attribute != "" && d.warning:
		diags.AddAttributeWarning(path.Root(d.attribute), d.summary, detail)
	case d.attribute != "":
		diags.AddAttributeError(path.Root(d.attribute), d.summary, detail)
	case d.warning:
		diags.AddWarning(d.summary, detail)
	default:
		diags.AddError(d.summary, detail)
	}
	return diags
}

// verdictFailures are the failures of PlanNewSlice's verdicts.
var verdictFailures = map[engine.NewSliceProblem]sliceFailure{
	engine.NoProblem:            sliceFine,
	engine.ClusterUnreadable:    sliceClusterUnreadable,
	engine.VersionUnknown:       sliceVersionUnknown,
	engine.VersionTooOld:        sliceVersionTooOld,
	engine.DeviceAccessMismatch: sliceAccessMismatch,
	engine.PartitionsUnusable:   slicePartitionsUnusable,
	engine.PartitionsInvalid:    slicePartitionsInvalid,
	engine.SelectorBlockUnknown: sliceSelectorBlockUnknown,
	engine.SelectionNotChecked:  sliceSelectionNotChecked,
	engine.SelectionUnmet:       sliceSelectionUnmet,
}

// verdictFailure is the failure of a plan's verdict on a new slice.
func verdictFailure(p engine.NewSliceProblem) sliceFailure { return verdictFailures[p] }

// applyFailure is the failure of an error of CreateSlice, by its type:
// sliceNotReady for any other error, sliceFine for none.
func applyFailure(err error) sliceFailure {
	var (
		access      *engine.ClusterAccessError
		exists      *engine.ExistsError
		atWork      *engine.CreatorAtWorkError
		notFormable *engine.NotFormableError
		selection   *engine.SelectionError
	)
	switch {
	case err == nil:
		return sliceFine
	case errors.As(err, &access):
		return sliceClusterUnreadable
	case errors.Is(err, engine.ErrKueueOwned):
		return sliceNameTakenByKueue
	case errors.As(err, &exists):
		return sliceNameTaken
	case errors.As(err, &atWork):
		return sliceBeingCreated
	case errors.As(err, &notFormable):
		return sliceNotFormable
	case errors.As(err, &selection):
		return sliceSelectionUnmet
	}
	return sliceNotReady
}

// selectionDetail is the cause of a SelectionError.
func selectionDetail(err error) string {
	var selection *engine.SelectionError
	if errors.As(err, &selection) {
		return selection.Detail()
	}
	return err.Error()
}

// notFormableDetail is the cause of a NotFormableError.
func notFormableDetail(err error) string {
	var notFormable *engine.NotFormableError
	if errors.As(err, &notFormable) {
		return notFormable.Detail()
	}
	return err.Error()
}

// sliceExistsDetail is the error of a create that found another Slice of
// its name.
func sliceExistsDetail(err error) string {
	var exists *engine.ExistsError
	if errors.As(err, &exists) {
		return existsDetail(exists, "gke_tpu_slice")
	}
	return err.Error()
}
