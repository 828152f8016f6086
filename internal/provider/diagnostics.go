package provider

import (
	"errors"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/day2"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
)

// This file is the one mapping of the engine's errors to diagnostics
// (issue 53). Every resource, action and data source hands an engine
// error to addError (or errorShown, errorDiagnostic, verdictShown), which
// walks errorTable in order with errors.As / errors.Is; no handler reads
// an error's text to tell errors apart.

// subject is what a diagnostic is about: the resource, action or data
// source whose handler maps the error. noun is the word users see in a
// summary ("Slice", "Node Pool"); resourceType is the resource's type,
// for the terraform import command of an ExistsError. A reader (a data
// source) only reads: a cluster it cannot read is the cause of its own
// failure ("Cannot List Partitions"), not a failure of its own.
type subject struct {
	noun, resourceType string
	reader             bool
}

var (
	subjectSlice       = subject{noun: "Slice", resourceType: "gke_tpu_slice"}
	subjectNodePool    = subject{noun: "Node Pool", resourceType: "gke_subblock_node_pool"}
	subjectPolicy      = subject{noun: "Workload Policy", resourceType: "gke_workload_policy"}
	subjectKueue       = subject{noun: "Kueue Objects", resourceType: "gke_kueue_slicing"}
	subjectMaintenance = subject{noun: "Maintenance"}
	subjectFaultReport = subject{noun: "Fault Report"}
	subjectSubBlocks   = subject{noun: "Reservation Sub-Blocks", reader: true}
	subjectPartitions  = subject{noun: "Partitions", reader: true}
	// The lists of terraform query read, as the data sources do.
	subjectPolicyList   = subject{noun: "Workload Policies", reader: true}
	subjectNodePoolList = subject{noun: "Sub-Block Node Pools", reader: true}
	subjectSliceList    = subject{noun: "Slices", reader: true}
)

// shown is how an error shows: a summary and a detail, on an attribute
// (none when at is empty).
type shown struct {
	at      path.Path
	summary string
	detail  string
}

// diagnostic is s as an error, or with warning a warning.
func (s shown) diagnostic(warning bool) diag.Diagnostic {
	switch noAttribute := len(s.at.Steps()) == 0; {
	case noAttribute && warning:
		return diag.NewWarningDiagnostic(s.summary, s.detail)
	case noAttribute:
		return diag.NewErrorDiagnostic(s.summary, s.detail)
	case warning:
		return diag.NewAttributeWarningDiagnostic(s.at, s.summary, s.detail)
	default:
		return diag.NewAttributeErrorDiagnostic(s.at, s.summary, s.detail)
	}
}

// then is s with more after its detail, past a blank line: what the
// error means for the apply.
func (s shown) then(more string) shown {
	if more != "" {
		s.detail += "\n\n" + more
	}
	return s
}

// errorRow is one row of errorTable: one exported error type, error
// value or plan problem of the engine, and how it shows.
type errorRow struct {
	// kind is the engine's exported name the row maps: an error type
	// ("ExistsError"), an error value ("ErrKueueOwned"), or a problem of
	// a plan's NewSliceVerdict ("VersionTooOld").
	kind string
	// match says whether an error is (or wraps) it; nil for a row that
	// only a verdict's problem selects.
	match func(error) bool
	// problems are the problems of NewSliceVerdict the row shows, whatever
	// the verdict's cause.
	problems []tpuslice.NewSliceProblem
	// show is how err shows for subject s. An empty summary is the
	// handler's own (the operation's, "Cannot Create ..."): the error is
	// a cause the engine wraps, not a kind of failure of its own.
	show func(err error, s subject) shown
	// expand, when set, gives the errors err stands for, each shown on its
	// own (a KueueSetupError's problems).
	expand func(error) []error
	// refusal: the engine refused the operation before anything was made,
	// so there is nothing to record in the state.
	refusal bool
}

// isA is whether err is (or wraps) an error of type T.
func isA[T error](err error) bool {
	var t T
	return errors.As(err, &t)
}

// asA is the error of type T that err is or wraps, if any.
func asA[T error](err error) (T, bool) {
	var t T
	ok := errors.As(err, &t)
	return t, ok
}

// isValue matches an error that is (or wraps) target.
func isValue(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

// fixed shows an error with the summary, on the root attribute attr
// (none when empty), with the error's text as the detail.
func fixed(attr, summary string) func(error, subject) shown {
	return func(err error, _ subject) shown { return shown{at: root(attr), summary: summary, detail: err.Error()} }
}

// named shows an error with the subject's noun and then suffix as the
// summary, on the root attribute attr, with the error's text as the
// detail.
func named(attr, suffix string) func(error, subject) shown {
	return func(err error, s subject) shown {
		return shown{at: root(attr), summary: s.noun + suffix, detail: err.Error()}
	}
}

// cause shows a wrapped cause: the handler's summary, the error's text.
func cause(err error, _ subject) shown { return shown{detail: err.Error()} }

func root(attr string) path.Path {
	if attr == "" {
		return path.Empty()
	}
	return path.Root(attr)
}

// detailOf is the detail of an error of type T that has a Detail method
// (the cause without the kind of error in front), or err's text.
func detailOf[T interface {
	error
	Detail() string
}](err error) string {
	if t, ok := asA[T](err); ok {
		return t.Detail()
	}
	return err.Error()
}

// kueueTopologySummaries are the summaries of a KueueTopologyError, by
// the rule it breaks.
var kueueTopologySummaries = map[kueue.KueueTopologyRule]string{
	kueue.KueueTopologyInvalid:    "Invalid Workload Topology",
	kueue.KueueTopologySubSlicing: "Sub-Slice Topology Without Sub-Slicing",
	kueue.KueueTopologyQuota:      "Workload Topology Exceeds the Queue's Quota",
	kueue.KueueTopologyBlock:      "Workload Topology Does Not Fit in One Block",
}

// kueueSetupSummary is the summary of a Kueue set-up that cannot work,
// and of any of its problems that has no row of its own.
const kueueSetupSummary = "Kueue Set-Up Cannot Work"

// errorTable is every error the engine exports, and every problem of a
// plan's verdict, with how it shows. It is walked in order: the first
// row that matches wins (ErrKueueOwned before ExistsError; the overflow
// before the topology). TestErrorTableCoversTheEngine fails when the
// engine exports an error type that has no row.
var errorTable = []errorRow{
	// The cluster and its version.
	{kind: "ClusterAccessError", match: isA[*clusterread.ClusterAccessError], problems: []tpuslice.NewSliceProblem{tpuslice.ClusterUnreadable},
		show: func(err error, s subject) shown {
			if s.reader {
				return cause(err, s)
			}
			return shown{summary: "Cannot Read the Cluster", detail: err.Error()}
		}},
	{kind: "ErrVersionUnknown", match: isValue(tpuslice.ErrVersionUnknown), problems: []tpuslice.NewSliceProblem{tpuslice.VersionUnknown},
		show: fixed("", "Cannot Read the Cluster")},
	{kind: "VersionTooOld", problems: []tpuslice.NewSliceProblem{tpuslice.VersionTooOld},
		show: fixed("topology", "Cluster Version Too Old")},
	{kind: "WatchFailingError", match: isA[*clusterread.WatchFailingError], show: cause},

	// Names: another object of the name.
	{kind: "ErrKueueOwned", match: isValue(clusterread.ErrKueueOwned), show: named("name", " Name Taken by Kueue"), refusal: true},
	{kind: "ExistsError", match: isA[*kernel.ExistsError], refusal: true,
		show: func(err error, s subject) shown {
			e, _ := asA[*kernel.ExistsError](err)
			return shown{at: path.Root("name"), summary: s.noun + " Name Taken", detail: existsDetail(e, s.resourceType)}
		}},
	{kind: "CreatorAtWorkError", match: isA[*kernel.CreatorAtWorkError], show: named("name", " Being Created Elsewhere"), refusal: true},

	// GKE's operations.
	{kind: "OperationError", match: isA[*kernel.OperationError], show: cause},
	{kind: "RetriedCreateError", match: isA[*kernel.RetriedCreateError], show: cause},
	{kind: "ZoneOutsideRegionError", match: isA[*location.ZoneOutsideRegionError], show: fixed("zone", "Zone Outside the Cluster's Region")},
	// Two resources of one plan that claim one place.
	{kind: "SubBlockClaimedError", match: isA[*nodepool.SubBlockClaimedError], show: fixed("reservation_sub_block", "Sub-Block Claimed Twice")},
	{kind: "PartitionClaimedError", match: isA[*tpuslice.PartitionClaimedError], show: fixed("partition_ids", "Partition Claimed Twice")},

	// Slices.
	{kind: "NotFormableError", match: isA[*tpuslice.NotFormableError], refusal: true,
		show: func(err error, s subject) shown {
			return shown{summary: s.noun + " Cannot Be Formed", detail: detailOf[*tpuslice.NotFormableError](err)}
		}},
	{kind: "SelectionError", match: isA[*tpuslice.SelectionError], problems: []tpuslice.NewSliceProblem{tpuslice.SelectionUnmet}, refusal: true,
		show: func(err error, _ subject) shown {
			return shown{at: path.Root("partition_selector"), summary: "Cannot Select Partitions", detail: detailOf[*tpuslice.SelectionError](err)}
		}},
	{kind: "SelectionNotCheckedError", match: isA[*tpuslice.SelectionNotCheckedError], problems: []tpuslice.NewSliceProblem{tpuslice.SelectionNotChecked},
		show: fixed("partition_selector", "Partition Selection Not Checked")},
	{kind: "SelectorBlockError", match: isA[*tpuslice.SelectorBlockError], problems: []tpuslice.NewSliceProblem{tpuslice.SelectorBlockUnknown},
		show: fixed("partition_selector", "No Node Pool Targets the Reservation Block")},
	{kind: "DeviceAccessError", match: isA[*tpuslice.DeviceAccessError], problems: []tpuslice.NewSliceProblem{tpuslice.DeviceAccessMismatch},
		show: fixed("device_access", "Device Access Not Offered by the Partitions")},
	{kind: "ListedPartitionsError", match: isA[*tpuslice.ListedPartitionsError], problems: []tpuslice.NewSliceProblem{tpuslice.PartitionsInvalid},
		show: fixed("partition_ids", "Partitions Cannot Form This Slice")},
	{kind: "PartitionsUnusable", problems: []tpuslice.NewSliceProblem{tpuslice.PartitionsUnusable},
		show: fixed("partition_ids", "Partitions Cannot Be Used")},
	{kind: "RetryOnFailureError", match: isA[*tpuslice.RetryOnFailureError], show: func(err error, s subject) shown {
		return shown{summary: "Cannot Update " + s.noun, detail: err.Error()}
	}},

	// Kueue.
	{kind: "KueueSetupError", match: isA[*kueue.KueueSetupError], show: fixed("", kueueSetupSummary),
		expand: func(err error) []error {
			e, _ := asA[*kueue.KueueSetupError](err)
			return e.Problems
		}},
	{kind: "InactiveQueueError", match: isA[*kueue.InactiveQueueError], show: func(err error, _ subject) shown {
		return shown{summary: "Kueue ClusterQueue Not Active", detail: err.Error() + ". The objects were applied, but Kueue admits no workload " +
			"from the queue until it is Active: fix the cause, then apply again (the queue is waited for within the create and update timeouts)."}
	}},
	{kind: "KueueAPIError", match: isA[*kueue.KueueAPIError], show: func(err error, _ subject) shown {
		return shown{summary: "Kueue v0.15 or Later Not Installed", detail: detailOf[*kueue.KueueAPIError](err)}
	}},
	{kind: "KueueNodePoolError", match: isA[*kueue.KueueNodePoolError], show: func(err error, _ subject) shown {
		return shown{at: path.Root("node_pools"), summary: "Node Pools Kueue Cannot Use", detail: detailOf[*kueue.KueueNodePoolError](err)}
	}},
	{kind: "KueueNamespaceError", match: isA[*kueue.KueueNamespaceError], show: func(err error, _ subject) shown {
		return shown{at: path.Root("namespaces"), summary: "Namespace Does Not Exist", detail: detailOf[*kueue.KueueNamespaceError](err)}
	}},
	{kind: "KueueOverflowError", match: isA[*kueue.KueueOverflowError], show: func(err error, _ subject) shown {
		return shown{at: path.Root("overflow"), summary: "Overflow Flavor Cannot Work", detail: detailOf[*kueue.KueueOverflowError](err)}
	}},
	{kind: "KueueTopologyError", match: isA[*kueue.KueueTopologyError], show: func(err error, _ subject) shown {
		e, _ := asA[*kueue.KueueTopologyError](err)
		return shown{at: path.Root("workload_topologies").AtListIndex(e.Index), summary: kueueTopologySummaries[e.Rule], detail: err.Error()}
	}},
	{kind: "KueueWorkloadsAdmittedError", match: isA[*kueue.KueueWorkloadsAdmittedError], show: func(err error, _ subject) shown {
		return shown{summary: "Queue Has Admitted Workloads", detail: detailOf[*kueue.KueueWorkloadsAdmittedError](err)}
	}},
	{kind: "ErrKueueSetup", match: isValue(kueue.ErrKueueSetup), show: fixed("", kueueSetupSummary)},

	// Day 2: maintenance, faults, sub-blocks.
	{kind: "SubBlocksInUseError", match: isA[*day2.SubBlocksInUseError], show: fixed("drain", "Maintenance Refused: Sub-Blocks in Use")},
	{kind: "NoPendingMaintenanceError", match: isA[*day2.NoPendingMaintenanceError], show: fixed("", "No Pending Maintenance")},
	{kind: "MaintenanceReadError", match: isA[*reservation.MaintenanceReadError], show: fixed("", "Cannot Read Reservation Sub-Block Maintenance")},
	// The reservation data sources show it as a warning beside what they
	// read (nodesUnread); anywhere else it fails the read.
	{kind: "NodeReadError", match: isA[*reservation.NodeReadError], show: fixed("", "Cannot Read the Cluster's Nodes")},
	// gke_partitions shows it as a warning beside the hosts it told.
	{kind: "SlotReadError", match: isA[*reservation.SlotReadError], show: fixed("", "Cannot Read Reservation Slots")},
}

// rowOf is the first row of errorTable that matches err, if any.
func rowOf(err error) (errorRow, bool) {
	for _, row := range errorTable {
		if row.match != nil && row.match(err) {
			return row, true
		}
	}
	return errorRow{}, false
}

// errorShown is how err shows for subject s: by its row, or with the
// handler's fallback summary (and attribute) for an error the table does
// not know, or whose row is a wrapped cause. own says whether the
// summary is the row's own.
func errorShown(err error, s subject, fallback shown) (d shown, own bool) {
	row, ok := rowOf(err)
	if !ok {
		fallback.detail = err.Error()
		return fallback, false
	}
	d = row.show(err, s)
	if d.summary == "" {
		d.at, d.summary = fallback.at, fallback.summary
		return d, false
	}
	return d, true
}

// errorDiagnostic is err as an error diagnostic for subject s; fallback
// is the summary of an error the table does not know.
func errorDiagnostic(err error, s subject, fallback string) diag.Diagnostic {
	d, _ := errorShown(err, s, shown{summary: fallback})
	return d.diagnostic(false)
}

// addError adds err to diags as errors for subject s: one, or one per
// error it stands for (a KueueSetupError's problems); fallback is the
// summary of an error the table does not know.
func addError(diags *diag.Diagnostics, err error, s subject, fallback string) {
	if row, ok := rowOf(err); ok && row.expand != nil {
		summary := row.show(err, s).summary
		for _, e := range row.expand(err) {
			addError(diags, e, s, summary)
		}
		return
	}
	diags.Append(errorDiagnostic(err, s, fallback))
}

// refused is whether err refused an operation before anything was made.
func refused(err error) bool {
	row, ok := rowOf(err)
	return ok && row.refusal
}

// verdictShown is how the cause of a plan's verdict on a new slice shows,
// by its problem (whatever the cause's type); ok is false for NoProblem.
func verdictShown(v tpuslice.NewSliceVerdict, s subject) (d shown, ok bool) {
	if v.Problem == tpuslice.NoProblem || v.Err == nil {
		return shown{}, false
	}
	for _, row := range errorTable {
		for _, p := range row.problems {
			if p == v.Problem {
				return row.show(v.Err, s), true
			}
		}
	}
	d, _ = errorShown(v.Err, s, shown{summary: "Cannot Plan " + s.noun})
	return d, true
}
