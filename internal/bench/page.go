package bench

import (
	_ "embed"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/template"
)

// guide is the benchmarks guide's text: fixed prose around tables of a
// report's figures. WriteMarkdown renders it into the tfplugindocs
// template of docs/guides/benchmarks.md (make bench-page).
//
//go:embed guide.md.tmpl
var guide string

var page = template.Must(template.New("guide").Funcs(template.FuncMap{
	"s":        func(ms float64) string { return fmt.Sprintf("%.2f s", ms/1000) },
	"ms":       func(ms float64) string { return fmt.Sprintf("%.1f ms", ms) },
	"median":   func(xs []float64) float64 { return percentile(xs, 50) },
	"ratio":    ratio,
	"ns":       NsString,
	"mib":      func(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) },
	"total":    total,
	"sum":      summarize,
	"per":      func(n int64, of int) string { return fmt.Sprintf("%.2f", float64(n)/float64(of)) },
	"requests": requestTable,
	"scalePlans": func(sc *Scaling) []Measurement {
		var out []Measurement
		for _, p := range sc.Points {
			out = append(out, p.Plan)
		}
		return out
	},
	"runs": func(xs []float64) string {
		var out []string
		for _, x := range xs {
			out = append(out, fmt.Sprintf("%.2f", x/1000))
		}
		return strings.Join(out, ", ")
	},
	"machine": func(m Machine) string {
		return fmt.Sprintf("%s, %d cores, %d GiB, %s, %s, %s", m.CPU, m.Cores, m.MemoryGiB, m.OS, m.Go, m.Terraform)
	},
	"yes": func(b bool) string { return map[bool]string{true: "yes", false: "no"}[b] },
}).Parse(guide))

// WriteMarkdown writes the benchmarks guide of the report.
func (r *Report) WriteMarkdown(w io.Writer) error { return page.Execute(w, r) }

// table is a Markdown table's head and rows.
type table struct {
	Head []string
	Rows [][]string
}

// requestTable is the requests of each command by API and method (a row
// each), one column per command: the count of each run, a range when the
// runs differ.
func requestTable(cmds []Measurement) table {
	t := table{Head: []string{"Requests"}}
	keys := map[string]bool{}
	for _, c := range cmds {
		t.Head = append(t.Head, c.Name)
		for _, runs := range [][]map[string]int64{c.Kube, c.Google} {
			for _, m := range runs {
				for k := range m {
					keys[k] = true
				}
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		kube := !strings.HasPrefix(k, "compute ") && !strings.HasPrefix(k, "container ")
		row := []string{"`" + k + "`"}
		if kube {
			row[0] = "Kubernetes " + row[0]
		}
		for _, c := range cmds {
			runs := c.Google
			if kube {
				runs = c.Kube
			}
			one := make([]map[string]int64, len(runs))
			for i, m := range runs {
				one[i] = map[string]int64{k: m[k]}
			}
			row = append(row, summarize(one))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// NsString is a Go benchmark's time per operation, in the unit that suits
// it.
func NsString(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.3f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}
