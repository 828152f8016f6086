package provider

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
)

// Every problem a plan's verdict can report shows at plan, with the
// severity, attribute and summary the acceptance tests expect.
func TestSliceDiagnosticsAtPlan(t *testing.T) {
	cause := errors.New("the cause")
	for _, tc := range []struct {
		problem tpuslice.NewSliceProblem
		sev     diag.Severity
		attr    string
		summary string
	}{
		{tpuslice.ClusterUnreadable, diag.SeverityWarning, "", "Cannot Read the Cluster"},
		{tpuslice.VersionUnknown, diag.SeverityWarning, "", "Cannot Read the Cluster"},
		{tpuslice.VersionTooOld, diag.SeverityError, "topology", "Cluster Version Too Old"},
		{tpuslice.DeviceAccessMismatch, diag.SeverityError, "device_access", "Device Access Not Offered by the Partitions"},
		{tpuslice.PartitionsUnusable, diag.SeverityWarning, "partition_ids", "Partitions Cannot Be Used"},
		{tpuslice.PartitionsInvalid, diag.SeverityError, "partition_ids", "Partitions Cannot Form This Slice"},
		{tpuslice.SelectorBlockUnknown, diag.SeverityError, "partition_selector", "No Node Pool Targets the Reservation Block"},
		{tpuslice.SelectionNotChecked, diag.SeverityWarning, "partition_selector", "Partition Selection Not Checked"},
		{tpuslice.SelectionUnmet, diag.SeverityWarning, "partition_selector", "Cannot Select Partitions"},
	} {
		diags := sliceVerdictDiagnostics(tpuslice.NewSliceVerdict{Problem: tc.problem, Err: cause})
		checkOneDiagnostic(t, fmt.Sprint(tc.problem), diags, tc.sev, tc.attr, tc.summary, "the cause")
	}
	if diags := sliceVerdictDiagnostics(tpuslice.NewSliceVerdict{}); len(diags) != 0 {
		t.Errorf("NoProblem gives %v, want none", diags)
	}
}

// CreateSlice's typed errors are told apart by type, never by text, and
// show as errors with the cause alone.
func TestSliceDiagnosticsAtApply(t *testing.T) {
	cause := errors.New("the cause")
	exists := &kernel.ExistsError{Kind: "Slice", ID: "s", Differences: []string{"topology is 4x4x8 (configuration: 4x4x4)"}, ImportID: "s"}
	for _, tc := range []struct {
		err     error
		refused bool
		attr    string
		summary string
		detail  string
	}{
		{&clusterread.ClusterAccessError{What: "nodes", Err: cause}, false, "", "Cannot Read the Cluster", ""},
		{fmt.Errorf("slice s: %w", clusterread.ErrKueueOwned), true, "name", "Slice Name Taken by Kueue", "slice s: "},
		{exists, true, "name", "Slice Name Taken", "terraform import gke_tpu_slice.<resource name> s"},
		{&kernel.CreatorAtWorkError{Kind: "Slice", ID: "s", Creator: "pid 7", Record: "kube-system/r"}, true, "name",
			"Slice Being Created Elsewhere", "being created at this moment by another run of this provider: pid 7"},
		{&tpuslice.NotFormableError{Err: cause}, true, "", "Slice Cannot Be Formed", "the cause"},
		{&tpuslice.SelectionError{Err: cause}, true, "partition_selector", "Cannot Select Partitions", "the cause"},
		{cause, false, "", "Slice Did Not Become Ready", "the cause"},
	} {
		if got := refused(tc.err); got != tc.refused {
			t.Errorf("refused(%v) = %v, want %v", tc.err, got, tc.refused)
		}
		var diags diag.Diagnostics
		addError(&diags, tc.err, subjectSlice, sliceNotReady)
		checkOneDiagnostic(t, tc.err.Error(), diags, diag.SeverityError, tc.attr, tc.summary, tc.detail)
	}
	// The detail of the typed errors is their cause, without the kind of
	// error in front.
	if d := errorDiagnostic(&tpuslice.NotFormableError{Err: cause}, subjectSlice, sliceNotReady); d.Detail() != "the cause" {
		t.Errorf("detail %q, want the cause alone", d.Detail())
	}
}

// checkOneDiagnostic fails unless diags is one diagnostic of severity
// sev, at root attribute attr (none when empty), with summary and a
// detail that contains detail.
func checkOneDiagnostic(t *testing.T, name string, diags diag.Diagnostics, sev diag.Severity, attr, summary, detail string) {
	t.Helper()
	if len(diags) != 1 {
		t.Errorf("%s: %d diagnostics, want 1: %v", name, len(diags), diags)
		return
	}
	d := diags[0]
	if d.Severity() != sev || d.Summary() != summary || !strings.Contains(d.Detail(), detail) {
		t.Errorf("%s: %s %q %q, want %s %q containing %q", name, d.Severity(), d.Summary(), d.Detail(), sev, summary, detail)
	}
	withPath, ok := d.(diag.DiagnosticWithPath)
	switch {
	case attr == "" && ok:
		t.Errorf("%s: at %s, want no attribute", name, withPath.Path())
	case attr != "" && (!ok || !withPath.Path().Equal(path.Root(attr))):
		t.Errorf("%s: not at %s", name, attr)
	}
}
