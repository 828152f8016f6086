package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The benchmarks guide is what gke-bench writes from the committed
// figures, byte for byte: no figure on the page was edited by hand.
func TestBenchmarkPageIsGenerated(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "benchmarks.json"))
	if err != nil {
		t.Fatalf("the page's figures: %v (make bench writes them)", err)
	}
	var r Report
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("templates/guides/benchmarks.json: %v", err)
	}
	page, err := os.ReadFile(filepath.Join("..", "..", "templates", "guides", "benchmarks.md.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	got, want := strings.Split(b.String(), "\n"), strings.Split(string(page), "\n")
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("templates/guides/benchmarks.md.tmpl is not what gke-bench writes from benchmarks.json (make bench-page); line %d:\n page:      %q\n generated: %q", i+1, want[i], got[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("the page has %d lines, gke-bench writes %d (make bench-page)", len(want), len(got))
	}
}

// A report of some steps shows their tables, each with its machine, and
// no section of the others.
func TestPageOfSomeSteps(t *testing.T) {
	t.Parallel()
	r := &Report{
		Runs: map[string]Measured{StepPlans: {Date: "2026-11-29T01:00:00Z", Command: "make bench-short", Machine: Machine{CPU: "Some CPU", Cores: 2}}},
		Commands: []Measurement{{Name: "plan 16 pools", WallMs: []float64{800, 900, 850}, MedianMs: 850, FloorMedianMs: 425,
			Kube:   []map[string]int64{{"watchlist nodes": 1}, {"watchlist nodes": 1}, {"watchlist nodes": 1, "get slices": 2}},
			Google: []map[string]int64{{"container GET nodePools": 1}, {"container GET nodePools": 1}, {"container GET nodePools": 1}}}},
	}
	var b bytes.Buffer
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"Measured on 2026-11-29 by `make bench-short` on Some CPU, 2 cores",
		"| plan 16 pools | 0.85 s | 0.80, 0.90, 0.85 |", "| 1-3 | 1 | 0.42 s | 2.00× |",
		"| Kubernetes `get slices` | 0-2 |", "| `container GET nodePools` | 1 |",
		"| Kubernetes requests per plan |",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q:\n%s", want, page)
		}
	}
	for _, absent := range []string{"## Apply of", "## Slices on demand", "## As the fleet grows", "## Go benchmarks", "{{", "<no value>"} {
		if strings.Contains(page, absent) {
			t.Errorf("the page has %q", absent)
		}
	}
}

func TestRequestTable(t *testing.T) {
	t.Parallel()
	got := requestTable([]Measurement{
		{Name: "a", Kube: []map[string]int64{{"list nodes": 2}}, Google: []map[string]int64{{"compute GET reservations": 1}}},
		{Name: "b", Kube: []map[string]int64{{}}, Google: []map[string]int64{{"compute GET reservations": 3}}},
	})
	want := table{Head: []string{"Requests", "a", "b"}, Rows: [][]string{{"`compute GET reservations`", "1", "3"}, {"Kubernetes `list nodes`", "2", "0"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("requestTable = %+v, want %+v", got, want)
	}
}
