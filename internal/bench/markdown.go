package bench

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteMarkdown writes the figures as the Markdown tables of
// docs/guides/benchmarks.md, to paste there after a run.
func (r *Report) WriteMarkdown(out io.Writer) error {
	var b bytes.Buffer
	w := func(format string, args ...any) { _, _ = fmt.Fprintf(&b, format, args...) }
	m := r.Machine
	w("Measured on %s, %d cores, %d GiB, %s, %s, %s, on %s.\n\n", m.CPU, m.Cores, m.MemoryGiB, m.OS, m.Go, m.Terraform, dateOf(r.Date))

	w("### Plan and refresh\n\n| Command | Median | Runs (s) | Kubernetes requests | GKE + Compute requests |\n|---|---|---|---|---|\n")
	for _, c := range r.Commands {
		runs := make([]string, len(c.WallMs))
		for i, x := range c.WallMs {
			runs[i] = fmt.Sprintf("%.2f", x/1000)
		}
		w("| %s | %.2f s | %s | %s | %s |\n", c.Name, c.MedianMs/1000, strings.Join(runs, ", "), summarize(c.Kube), summarize(c.Google))
	}

	var plans []Measurement
	for _, c := range r.Commands {
		if strings.HasPrefix(c.Name, "plan ") {
			plans = append(plans, c)
		}
	}
	w("\n| Requests of one plan |")
	for _, c := range plans {
		w(" %s |", strings.TrimPrefix(c.Name, "plan "))
	}
	w("\n|---|%s\n", strings.Repeat("---|", len(plans)))
	for _, kind := range []struct {
		prefix string
		runs   func(Measurement) []map[string]int64
	}{
		{"Kubernetes ", func(c Measurement) []map[string]int64 { return c.Kube }},
		{"", func(c Measurement) []map[string]int64 { return c.Google }},
	} {
		for _, k := range keysOf(plans, kind.runs) {
			w("| %s`%s` |", kind.prefix, k)
			for _, c := range plans {
				lo, hi := countRange(kind.runs(c), k)
				w(" %s |", rangeString(lo, hi))
			}
			w("\n")
		}
	}

	if p := r.Profile; p.Name != "" {
		w("\n### Where the time of one %s goes\n\nWall time: %.2f s.\n\n| gRPC call | Calls | Total | Slowest |\n|---|---|---|---|\n", p.Name, p.WallMs/1000)
		var names []string
		for k := range p.RPCs {
			names = append(names, k)
		}
		sort.Strings(names)
		var total float64
		for _, k := range names {
			t := p.RPCs[k]
			total += t.TotalMs
			w("| `%s` | %d | %.0f ms | %.0f ms |\n", k, t.Calls, t.TotalMs, t.MaxMs)
		}
		w("| all calls | | %.0f ms | |\n", total)
	}

	a := r.Active
	w("\n### Time from ACTIVE to the end of create\n\n| Slices | Median | p95 | Max |\n|---|---|---|---|\n| %d × `%s` | %.1f ms | %.1f ms | %.1f ms |\n",
		a.Slices, a.Topology, a.MedianMs, a.P95Ms, a.MaxMs)

	pa := r.PoolApply
	w("\n### Apply of %d node pools\n\n| Pools | Emulated operation | Longest operation | Wall time | Overhead | Before the first operation | After the last |\n|---|---|---|---|---|---|---|\n", pa.Pools)
	w("| %d (`-parallelism=%d`) | %.0f s | %.2f s | %.2f s | %.2f s (%.1f%%) | %.2f s | %.2f s |\n",
		pa.Pools, pa.Parallelism, pa.DelayMs/1000, pa.OperationMs/1000, pa.WallMs/1000, pa.OverheadMs/1000, pa.OverheadPct, pa.BeforeMs/1000, pa.AfterMs/1000)

	s := r.Startup
	w("\n### Start-up, schema and size\n\n| Figure | Value |\n|---|---|\n")
	w("| Start-up (%d starts) | median %.1f ms, p95 %.1f ms |\n", s.Runs, s.StartMedianMs, s.StartP95Ms)
	w("| `GetProviderSchema` | median %.1f ms, p95 %.1f ms, %d bytes |\n", s.SchemaMedianMs, s.SchemaP95Ms, s.SchemaBytes)
	w("| Binary (%s) | %.1f MiB (%d bytes) |\n", m.OS, float64(s.BinaryBytes)/(1<<20), s.BinaryBytes)

	if len(r.GoBench) > 0 {
		w("\n### Go benchmarks\n\n| Benchmark | Time/op | B/op | allocs/op |\n|---|---|---|---|\n")
		for _, g := range r.GoBench {
			w("| `%s` | %s | %.0f | %.0f |\n", g.Name, nsString(g.NsPerOp), g.BytesPerOp, g.AllocsPerOp)
		}
	}

	w("\n### Targets\n\n| Target | Goal | Measured | Met |\n|---|---|---|---|\n")
	for _, t := range r.Targets {
		w("| %s | %s | %s | %s |\n", t.Name, t.Target, t.Measured, strings.ToLower(yesNo(t.Met)))
	}
	_, err := out.Write(b.Bytes())
	return err
}

func dateOf(rfc3339 string) string {
	if len(rfc3339) >= 10 {
		return rfc3339[:10]
	}
	return rfc3339
}

// keysOf is every request key of the measurements, sorted.
func keysOf(ms []Measurement, runs func(Measurement) []map[string]int64) []string {
	set := map[string]bool{}
	for _, c := range ms {
		for _, run := range runs(c) {
			for k := range run {
				set[k] = true
			}
		}
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// countRange is the least and most requests of key over the runs.
func countRange(runs []map[string]int64, key string) (int64, int64) {
	var lo, hi int64 = -1, 0
	for _, c := range runs {
		v := c[key]
		if lo < 0 || v < lo {
			lo = v
		}
		hi = max(hi, v)
	}
	return max(lo, 0), hi
}
