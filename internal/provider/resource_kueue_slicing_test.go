package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
)

// Each problem of a Kueue set-up lands on its attribute, as an error, or
// as a warning (an unchanged configuration) that says the apply fails.
func TestAddKueueProblem(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		problem error
		at      path.Path
		summary string
	}{
		"api":        {&kueue.KueueAPIError{Served: []string{"v1beta1"}}, path.Path{}, "Kueue v0.15 or Later Not Installed"},
		"pools":      {&kueue.KueueNodePoolError{Problems: []kueue.KueuePoolProblem{{Pool: "p", NoNodes: true}}}, path.Root("node_pools"), "Node Pools Kueue Cannot Use"},
		"namespaces": {&kueue.KueueNamespaceError{Missing: []string{"x"}}, path.Root("namespaces"), "Namespace Does Not Exist"},
		"topology": {&kueue.KueueTopologyError{Index: 2, Topology: "4x4x12", Rule: kueue.KueueTopologyBlock},
			path.Root("workload_topologies").AtListIndex(2), "Workload Topology Does Not Fit in One Block"},
	} {
		for _, asError := range []bool{true, false} {
			var diags diag.Diagnostics
			addKueueProblem(&diags, tc.problem, asError)
			if len(diags) != 1 {
				t.Fatalf("%s: %v", name, diags)
			}
			d := diags[0]
			wantSeverity := diag.SeverityError
			if !asError {
				wantSeverity = diag.SeverityWarning
			}
			var at path.Path
			wp, withPath := d.(diag.DiagnosticWithPath)
			if withPath {
				at = wp.Path()
			}
			if d.Severity() != wantSeverity || d.Summary() != tc.summary || withPath != (len(tc.at.Steps()) > 0) || at.String() != tc.at.String() {
				t.Errorf("%s (error %v): %s %q at %s, want %s %q at %s", name, asError, d.Severity(), d.Summary(), at, wantSeverity, tc.summary, tc.at)
			}
			if !asError && !strings.Contains(d.Detail(), "applying these objects fails until it is fixed") {
				t.Errorf("%s: the warning does not say the apply fails: %s", name, d.Detail())
			}
		}
	}
}
