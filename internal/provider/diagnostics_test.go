package provider

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/day2"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
)

// engineNames are the engine's exported error types (type XError
// struct), its exported error values (var ErrX) and the problems of a
// plan's NewSliceVerdict, as its source declares them.
type engineNames struct{ types, values, problems []string }

// readEngineNames parses internal/engine (tests left out).
func readEngineNames(t *testing.T) engineNames {
	t.Helper()
	seen := map[string]bool{}
	var names engineNames
	add := func(list *[]string, name string) {
		if !seen[name] {
			seen[name] = true
			*list = append(*list, name)
		}
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(filepath.Join("..", "engine"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			problem := false // in a const block of NewSliceProblem
			for _, spec := range g.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					if _, isStruct := s.Type.(*ast.StructType); isStruct && s.Name.IsExported() && strings.HasSuffix(s.Name.Name, "Error") {
						add(&names.types, s.Name.Name)
					}
				case *ast.ValueSpec:
					if g.Tok == token.CONST {
						if s.Type != nil {
							id, ok := s.Type.(*ast.Ident)
							problem = ok && id.Name == "NewSliceProblem"
						} else if len(s.Values) > 0 {
							problem = false
						}
						for _, n := range s.Names {
							if problem && n.IsExported() && n.Name != "NoProblem" {
								add(&names.problems, n.Name)
							}
						}
					}
					if g.Tok == token.VAR {
						for _, n := range s.Names {
							if n.IsExported() && strings.HasPrefix(n.Name, "Err") {
								add(&names.values, n.Name)
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(names.types) == 0 || len(names.problems) == 0 || len(names.values) == 0 {
		t.Fatalf("found no engine errors in ../engine: %+v", names)
	}
	return names
}

// notShownValues are the engine's error values that have no row, and
// why: no handler shows them as a failure of their own.
var notShownValues = map[string]string{
	"ErrNotFound":         "a read that finds nothing removes the resource from the state; elsewhere it is the cause of the operation's failure",
	"ErrNoAnswer":         "the cause inside a ClusterAccessError or an operation's failure",
	"ErrSelection":        "errors.Is of every SelectionError, which has a row",
	"ErrNotFormable":      "errors.Is of every NotFormableError, which has a row",
	"ErrNoMaintenanceAPI": "the cause of a maintenance or fault report that cannot be made (the action's summary)",
	"ErrListUnsupported":  "the cause of a list that cannot be made (the list's summary)",
}

// causeKinds are the rows whose summary is the handler's own ("Cannot
// Create Sub-Block Node Pool"): errors the engine wraps around a cause,
// not failures of their own.
var causeKinds = map[string]bool{"WatchFailingError": true, "OperationError": true, "RetriedCreateError": true}

// sharedSummaries are rows that show with another row's summary, on
// purpose: the same failure, as users know it.
var sharedSummaries = map[string]string{
	"ErrVersionUnknown": "ClusterAccessError", // both: Cannot Read the Cluster
	"ErrKueueSetup":     "KueueSetupError",    // both: Kueue Set-Up Cannot Work
}

// errorSamples are an error of each row's kind that matches it.
func errorSamples() map[string]error {
	cause := errors.New("the cause")
	return map[string]error{
		"ClusterAccessError":          &clusterread.ClusterAccessError{What: "nodes", Err: cause},
		"ErrVersionUnknown":           fmt.Errorf("version: %w", tpuslice.ErrVersionUnknown),
		"WatchFailingError":           &clusterread.WatchFailingError{Failing: time.Minute, Attempts: 3, Err: cause},
		"ErrKueueOwned":               fmt.Errorf("slice s: %w", clusterread.ErrKueueOwned),
		"ExistsError":                 &kernel.ExistsError{Kind: "Slice", ID: "s", Differences: []string{"topology differs"}, ImportID: "s"},
		"CreatorAtWorkError":          &kernel.CreatorAtWorkError{Kind: "Slice", ID: "s", Creator: "pid 7", Record: "kube-system/r"},
		"OperationError":              &kernel.OperationError{Name: "op", Message: "it failed"},
		"RetriedCreateError":          &kernel.RetriedCreateError{Attempts: 2, Err: cause},
		"ZoneOutsideRegionError":      &location.ZoneOutsideRegionError{Zone: "us-east1-b", Location: "us-central1"},
		"NotFormableError":            &tpuslice.NotFormableError{Err: cause},
		"SelectionError":              &tpuslice.SelectionError{Err: cause},
		"SelectionNotCheckedError":    &tpuslice.SelectionNotCheckedError{Err: cause},
		"SelectorBlockError":          &tpuslice.SelectorBlockError{Block: "b", Cluster: "c"},
		"DeviceAccessError":           &tpuslice.DeviceAccessError{Access: clusterread.DRA, Partitions: []string{"p"}},
		"ListedPartitionsError":       fmt.Errorf("the listed partitions: %w", &tpuslice.ListedPartitionsError{Rule: tpuslice.ListedTwoBlocks}),
		"RetryOnFailureError":         &tpuslice.RetryOnFailureError{Err: cause},
		"KueueSetupError":             &kueue.KueueSetupError{Problems: []error{cause}},
		"KueueAPIError":               &kueue.KueueAPIError{Missing: []string{"topologies"}},
		"InactiveQueueError":          &kueue.InactiveQueueError{Queue: "q", Reason: "AdmissionCheckInactive", Message: "references inactive AdmissionCheck(s): q", Err: context.DeadlineExceeded},
		"KueueNodePoolError":          &kueue.KueueNodePoolError{Problems: []kueue.KueuePoolProblem{{}}, Cluster: "c"},
		"KueueNamespaceError":         &kueue.KueueNamespaceError{Missing: []string{"ns"}},
		"KueueOverflowError":          &kueue.KueueOverflowError{Missing: []string{"pool"}},
		"KueueTopologyError":          fmt.Errorf("workload topology: %w", &kueue.KueueTopologyError{Index: 1, Topology: "4x4x4", Rule: kueue.KueueTopologyQuota}),
		"KueueWorkloadsAdmittedError": &kueue.KueueWorkloadsAdmittedError{Queue: "q", Workloads: []string{"w"}},
		"ErrKueueSetup":               fmt.Errorf("set-up: %w", kueue.ErrKueueSetup),
		"SubBlocksInUseError":         &day2.SubBlocksInUseError{Target: "sub-block s"},
		"NoPendingMaintenanceError":   &day2.NoPendingMaintenanceError{Target: "sub-block s"},
		"MaintenanceReadError":        &reservation.MaintenanceReadError{Err: cause},
		"NodeReadError":               &reservation.NodeReadError{Err: cause},
		"SlotReadError":               &reservation.SlotReadError{Err: cause},
		"SubBlockClaimedError":        &nodepool.SubBlockClaimedError{Pool: "np-2", Other: "np-1", SubBlock: "projects/p/reservations/r/reservationBlocks/b/reservationSubBlocks/s"},
		"PartitionClaimedError":       &tpuslice.PartitionClaimedError{Slice: "s2", Partition: "p", Other: "s1", OtherPartition: "p"},
	}
}

// Every exported error type of the engine, and every problem of a plan's
// verdict, has a row of errorTable; every exported error value has a row
// or a reason in notShownValues. A new engine error fails this test until
// it is given a row.
func TestErrorTableCoversTheEngine(t *testing.T) {
	names := readEngineNames(t)
	rows := map[string]errorRow{}
	problems := map[string]bool{}
	for _, row := range errorTable {
		if _, dup := rows[row.kind]; dup {
			t.Errorf("two rows of %s", row.kind)
		}
		rows[row.kind] = row
		for _, p := range row.problems {
			problems[fmt.Sprint(p)] = true
		}
	}
	for _, name := range names.types {
		if row, ok := rows[name]; !ok || row.match == nil {
			t.Errorf("engine.%s has no row of errorTable that matches it: add one (internal/provider/diagnostics.go)", name)
		}
	}
	for _, name := range names.values {
		if _, ok := rows[name]; !ok && notShownValues[name] == "" {
			t.Errorf("engine.%s has no row of errorTable: add one, or say in notShownValues why it needs none", name)
		}
	}
	planned := append([]string(nil), names.problems...)
	sort.Strings(planned)
	// Every problem the engine declares is shown by a row.
	shownProblems := 0
	for p := tpuslice.NoProblem + 1; p < tpuslice.NoProblem+64; p++ {
		if _, ok := verdictShown(tpuslice.NewSliceVerdict{Problem: p, Err: errors.New("the cause")}, subjectSlice); ok && problems[fmt.Sprint(p)] {
			shownProblems++
		}
	}
	if shownProblems != len(planned) {
		t.Errorf("the rows show %d problems of NewSliceVerdict, the engine declares %d (%v): give each a row's problems", shownProblems, len(planned), planned)
	}
	for kind := range rows {
		if _, ok := errorSamples()[kind]; !ok && rows[kind].match != nil {
			t.Errorf("row %s has no sample in errorSamples", kind)
		}
	}
}

// Each typed error comes out of the table by its own row, with its own
// summary (or, for a wrapped cause, the handler's) and a detail; an error
// the table does not know comes out with the handler's summary.
func TestErrorTableShowsEachError(t *testing.T) {
	const generic = "Cannot Do It"
	bySummary := map[string]string{}
	for kind, err := range errorSamples() {
		row, ok := rowOf(err)
		if !ok || row.kind != kind {
			t.Errorf("%s: matched row %q, want its own", kind, row.kind)
			continue
		}
		for _, s := range []subject{subjectSlice, subjectNodePool, subjectPolicy, subjectKueue, subjectMaintenance, subjectFaultReport} {
			d, own := errorShown(err, s, shown{summary: generic})
			if causeKinds[kind] {
				if own || d.summary != generic {
					t.Errorf("%s for %s: summary %q, want the handler's (%q)", kind, s.noun, d.summary, generic)
				}
			} else if !own || d.summary == "" || d.summary == generic {
				t.Errorf("%s for %s: summary %q, want its own", kind, s.noun, d.summary)
			}
			if d.detail == "" {
				t.Errorf("%s for %s: no detail", kind, s.noun)
			}
		}
		if causeKinds[kind] {
			continue
		}
		d, _ := errorShown(err, subjectSlice, shown{summary: generic})
		if other, taken := bySummary[d.summary]; taken && sharedSummaries[kind] != other && sharedSummaries[other] != kind {
			t.Errorf("%s and %s both show as %q", kind, other, d.summary)
		}
		bySummary[d.summary] = kind
	}
	// A KueueSetupError shows its problems, each on its own.
	var diags diag.Diagnostics
	addError(&diags, &kueue.KueueSetupError{Problems: []error{&kueue.KueueNamespaceError{Missing: []string{"ns"}}, errors.New("other")}}, subjectKueue, generic)
	if len(diags) != 2 || diags[0].Summary() != "Namespace Does Not Exist" || diags[1].Summary() != kueueSetupSummary {
		t.Errorf("KueueSetupError: %v, want its two problems", diags)
	}
	// An unknown error: the handler's summary, the error's text.
	unknown := errors.New("something else")
	for _, s := range []subject{subjectSlice, subjectNodePool, subjectPartitions} {
		if d, own := errorShown(unknown, s, shown{summary: generic}); own || d.summary != generic || d.detail != "something else" {
			t.Errorf("unknown error for %s: %q %q (own %v), want %q and its text", s.noun, d.summary, d.detail, own, generic)
		}
	}
	// A reader names the operation it could not do, and the cluster it
	// could not read in the detail.
	if d, _ := errorShown(errorSamples()["ClusterAccessError"], subjectPartitions, shown{summary: "Cannot List Partitions"}); d.summary != "Cannot List Partitions" {
		t.Errorf("ClusterAccessError of a reader: %q, want the reader's summary", d.summary)
	}
	// The resource's words: the same engine error, each resource's noun.
	for _, tc := range []struct {
		err     error
		s       subject
		summary string
	}{
		{errorSamples()["ExistsError"], subjectSlice, "Slice Name Taken"},
		{errorSamples()["ExistsError"], subjectNodePool, "Node Pool Name Taken"},
		{errorSamples()["CreatorAtWorkError"], subjectSlice, "Slice Being Created Elsewhere"},
		{errorSamples()["CreatorAtWorkError"], subjectNodePool, "Node Pool Being Created Elsewhere"},
		{errorSamples()["RetryOnFailureError"], subjectSlice, "Cannot Update Slice"},
	} {
		if d := errorDiagnostic(tc.err, tc.s, generic); d.Summary() != tc.summary {
			t.Errorf("%T for %s: %q, want %q", tc.err, tc.s.noun, d.Summary(), tc.summary)
		}
	}
	if d := errorDiagnostic(errorSamples()["ExistsError"], subjectNodePool, generic); !strings.Contains(d.Detail(), "terraform import gke_subblock_node_pool.") {
		t.Errorf("ExistsError of a node pool: detail %q, want its import command", d.Detail())
	}
}
