package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
)

// goBenchPackages hold the Go benchmarks of the pure logic.
var goBenchPackages = []string{"./internal/topology", "./internal/engine", "./internal/provider"}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(?:\s+([\d.]+) B/op)?(?:\s+([\d.]+) allocs/op)?`)

// goBenchmarks runs `go test -bench` on the pure logic and parses it.
func goBenchmarks(ctx context.Context, root string) ([]GoBenchmark, error) {
	args := append([]string{"test", "-run", "^$", "-bench", ".", "-benchmem", "-count", "1"}, goBenchPackages...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return parseGoBench(out), nil
}

func parseGoBench(out []byte) []GoBenchmark {
	var res []GoBenchmark
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		b := GoBenchmark{Name: m[1]}
		b.NsPerOp, _ = strconv.ParseFloat(m[2], 64)
		b.BytesPerOp, _ = strconv.ParseFloat(m[3], 64)
		b.AllocsPerOp, _ = strconv.ParseFloat(m[4], 64)
		res = append(res, b)
	}
	return res
}

// selectionBenchmarks are the Go benchmarks of choosing partitions.
func selectionBenchmarks(r *Report) []GoBenchmark {
	var out []GoBenchmark
	for _, b := range r.GoBench {
		if strings.Contains(b.Name, "Select") {
			out = append(out, b)
		}
	}
	return out
}

// maxOver is the largest count of key over the runs of m.
func maxOver(runs []map[string]int64, key string) int64 {
	var n int64
	for _, c := range runs {
		n = max(n, c[key])
	}
	return n
}

func targets(r *Report) []TargetResult {
	var out []TargetResult

	var parts []string
	met := len(r.Commands) > 0
	for _, c := range r.Commands {
		if !strings.HasPrefix(c.Name, "plan ") {
			continue
		}
		lists := maxOver(c.Kube, "list nodes") + maxOver(c.Kube, "watchlist nodes")
		pages := maxOver(c.Kube, "list-page nodes")
		parts = append(parts, fmt.Sprintf("%s: %d list (+%d continuation pages)", strings.TrimPrefix(c.Name, "plan "), lists, pages))
		met = met && lists == 1
	}
	out = append(out, TargetResult{
		Name:     "Kubernetes node LISTs per plan",
		Target:   "do not grow with the number of pools (one list per provider process)",
		Measured: strings.Join(parts, "; "),
		Met:      met,
		How:      OutOfProcess,
	})

	if t, ok := kubeRequestsTarget(r); ok {
		out = append(out, t)
	}

	if t, ok := floorTarget(r); ok {
		out = append(out, t)
	}

	out = append(out, TargetResult{
		Name:     "ACTIVE seen after the simulator's status update",
		Target:   "median within 100 ms",
		Measured: fmt.Sprintf("median %.1f ms, p95 %.1f ms over %d slices", r.Active.MedianMs, r.Active.P95Ms, r.Active.Slices),
		Met:      r.Active.Slices >= 20 && r.Active.MedianMs <= 100,
		How:      InProcess,
	})

	sel := selectionBenchmarks(r)
	if len(sel) > 0 {
		worst := sel[0]
		for _, b := range sel {
			if b.NsPerOp > worst.NsPerOp {
				worst = b
			}
		}
		out = append(out, TargetResult{
			Name:     "Partition selection (2304 nodes)",
			Target:   "under 5 ms",
			Measured: fmt.Sprintf("slowest %.3f ms (%s)", worst.NsPerOp/1e6, worst.Name),
			Met:      worst.NsPerOp < 5e6,
			How:      GoBench,
		})
	}

	return append(out, poolApplyTargets(r)...)
}

// maxRequestsPerPool is the target of the pool apply's GKE and Compute
// requests per pool, its create included.
const maxRequestsPerPool = 6

// poolApplyTargets are the targets of the pool apply: its overhead and its
// GKE and Compute requests per pool.
func poolApplyTargets(r *Report) []TargetResult {
	pa := r.PoolApply
	var total int64
	for _, n := range pa.GoogleRequests {
		total += n
	}
	return []TargetResult{{
		Name:     fmt.Sprintf("Provider overhead, %d-pool apply", pa.Pools),
		Target:   "under 10% of the operation time",
		Measured: fmt.Sprintf("%.0f ms over a %.0f ms operation (%.1f%%)", pa.OverheadMs, pa.OperationMs, pa.OverheadPct),
		Met:      pa.OperationMs > 0 && pa.OverheadPct < 10,
		How:      OutOfProcess,
	}, {
		Name:     fmt.Sprintf("GKE and Compute requests, %d-pool apply", pa.Pools),
		Target:   fmt.Sprintf("at most %d per pool, its create included", maxRequestsPerPool),
		Measured: fmt.Sprintf("%d requests, %.1f per pool (%s)", total, pa.RequestsPerPool(), requestList(pa.GoogleRequests)),
		Met:      pa.Pools > 0 && total > 0 && pa.RequestsPerPool() <= maxRequestsPerPool,
		How:      OutOfProcess,
	}}
}

// kubeRequestsTarget checks that the Kubernetes requests of a plan do not
// grow with the stack and stay within the client's burst, so that a plan
// never waits on client-go's rate limiter (its token bucket starts full
// with KubeBurst tokens).
func kubeRequestsTarget(r *Report) (TargetResult, bool) {
	var parts []string
	var first int64 = -1
	met := true
	for _, c := range r.Commands {
		if !strings.HasPrefix(c.Name, "plan ") {
			continue
		}
		// Continuation pages of the first list follow the number of
		// nodes, not of resources: they count against the burst only.
		var most, fixed int64
		for _, run := range c.Kube {
			var n, pages int64
			for k, v := range run {
				n += v
				if strings.HasPrefix(k, "list-page ") {
					pages += v
				}
			}
			most, fixed = max(most, n), max(fixed, n-pages)
		}
		if first < 0 {
			first = fixed
		}
		met = met && fixed == first && most <= clients.KubeBurst
		parts = append(parts, fmt.Sprintf("%s: %d", strings.TrimPrefix(c.Name, "plan "), most))
	}
	if len(parts) == 0 {
		return TargetResult{}, false
	}
	for _, t := range []struct {
		what string
		th   *ClientThrottling
	}{{"in-process plan", r.Profile.Throttling}, {"in-process apply of the slices", r.Active.Throttling}} {
		if t.th != nil {
			parts = append(parts, fmt.Sprintf("%s: %s", t.what, t.th))
			met = met && t.th.Throttled == 0
		}
	}
	return TargetResult{
		Name:     "Kubernetes requests per plan",
		Target:   fmt.Sprintf("the same at every size (but the node list's pages), within the client's burst (%d at %d QPS): a plan never waits on client-side throttling", clients.KubeBurst, clients.KubeQPS),
		Measured: strings.Join(parts, "; "),
		Met:      met,
		How:      OutOfProcess,
	}, true
}

// String says how many requests the rate limiters saw and how many of
// them waited.
func (t *ClientThrottling) String() string {
	return fmt.Sprintf("%d requests through client-go's rate limiter, %d waited %s or more (longest %.1f ms)", t.Requests, t.Throttled, throttledAfter, t.LongestWaitMs)
}

// The plan held to its floor, and how close.
const (
	floorTargetPools  = podSubBlocks
	floorTargetSlices = activeSlices
	floorTargetRatio  = 1.5
)

// floorTarget compares the plan of 144 pools and 36 slices with its
// floor, when the run planned that stack.
func floorTarget(r *Report) (TargetResult, bool) {
	for _, c := range r.Commands {
		if !strings.HasPrefix(c.Name, "plan ") || c.Pools != floorTargetPools || c.Slices != floorTargetSlices {
			continue
		}
		t := TargetResult{
			Name:     fmt.Sprintf("Plan of %d pools + %d slices against its floor", c.Pools, c.Slices),
			Target:   fmt.Sprintf("within %.1f× the floor (a plan of as many no-op resources)", floorTargetRatio),
			Measured: "no floor measured",
			How:      OutOfProcess,
		}
		if ratio := floorRatio(c); ratio > 0 {
			t.Measured = fmt.Sprintf("%.2f s against a floor of %.2f s (%d resources): %.2f×", c.MedianMs/1000, c.FloorMedianMs/1000, c.FloorResources, ratio)
			t.Met = ratio <= floorTargetRatio
			if sr := schemaFloorRatio(c); sr > 0 {
				t.Measured += fmt.Sprintf("; the schema floor (the same %d resources and values through the provider's schemas, no provider work) took %.2f s: "+
					"the schemas' own cost is %.2f× the floor, the provider's work and the module's evaluation %.2f× on top", c.SchemaFloorResources, c.SchemaFloorMedianMs/1000, c.SchemaFloorMedianMs/c.FloorMedianMs, sr)
			}
			if c := r.Profile.CPU; c != nil && c.ProviderMs+c.FrameworkMs > 0 {
				t.Measured += fmt.Sprintf("; of the provider's CPU in the RPCs of the in-process plan, terraform-plugin-framework's work "+
					"around the handlers was %.0f%% (%.2f s), the handlers and engine %.2f s", 100*c.FrameworkShare(), c.FrameworkMs/1000, c.ProviderMs/1000)
			}
		}
		return t, true
	}
	return TargetResult{}, false
}

// WriteTable prints the report as plain-text tables.
func (r *Report) WriteTable(out io.Writer) error {
	var b bytes.Buffer
	r.writeTable(&b)
	_, err := out.Write(b.Bytes())
	return err
}

// writeTable prints the tables of the report, one after the other.
func (r *Report) writeTable(w *bytes.Buffer) {
	r.writeMachine(w)
	r.writeCommandTable(w)
	r.writeRequestBreakdown(w)
	r.writeFigures(w)
	r.writeProfileTable(w)
	r.writeGoBenchTable(w)
	r.writeTargetTable(w)
}

// writeMachine prints the machine and the date of the run.
func (r *Report) writeMachine(w *bytes.Buffer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintf(tw, "Machine:\t%s, %d cores, %d GiB, %s, %s, %s\n", r.Machine.CPU, r.Machine.Cores, r.Machine.MemoryGiB, r.Machine.OS, r.Machine.Go, r.Machine.Terraform)
	_, _ = fmt.Fprintf(tw, "Date:\t%s\n\n", r.Date)
	_ = tw.Flush()
}

// writeCommandTable prints the Terraform commands: runs, median time and
// requests.
func (r *Report) writeCommandTable(w *bytes.Buffer) {
	_, _ = fmt.Fprintln(w, "Terraform commands on the sandbox (pod inventory: 144 sub-blocks, 2304 nodes when full)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "command\truns\tmedian\tKubernetes requests\tGKE+Compute requests\tfloor (no-op resources)\tschema floor")
	for _, c := range r.Commands {
		_, _ = fmt.Fprintf(tw, "%s\t%d\t%.2f s\t%s\t%s\t%s\t%s\n", c.Name, len(c.WallMs), c.MedianMs/1000, summarize(c.Kube), summarize(c.Google), floorString(c), schemaFloorString(c))
	}
	_ = tw.Flush()
	_, _ = fmt.Fprintln(w)
}

// writeRequestBreakdown prints each command's requests by verb and resource.
func (r *Report) writeRequestBreakdown(w *bytes.Buffer) {
	_, _ = fmt.Fprintln(w, "Requests by verb and resource (each run; a range when runs differ)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range r.Commands {
		_, _ = fmt.Fprintf(tw, "%s\t\t\n", c.Name)
		for _, line := range breakdown(c.Kube) {
			_, _ = fmt.Fprintf(tw, "\tkube %s\n", line)
		}
		for _, line := range breakdown(c.Google) {
			_, _ = fmt.Fprintf(tw, "\t%s\n", line)
		}
	}
	_ = tw.Flush()
	_, _ = fmt.Fprintln(w)
}

// writeFigures prints the single figures: the pool apply, the time to
// ACTIVE, start-up, schema, binary size, and the setup commands.
func (r *Report) writeFigures(w *bytes.Buffer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "figure\tvalue")
	pa := r.PoolApply
	_, _ = fmt.Fprintf(tw, "apply of %d pools, %.0f s emulated operations, -parallelism=%d\t%.2f s wall; longest operation %.2f s; overhead %.2f s (%.1f%%): %.2f s before the first operation, %.2f s after the last\n",
		pa.Pools, pa.DelayMs/1000, pa.Parallelism, pa.WallMs/1000, pa.OperationMs/1000, pa.OverheadMs/1000, pa.OverheadPct, pa.BeforeMs/1000, pa.AfterMs/1000)
	_, _ = fmt.Fprintf(tw, "simulator marks ACTIVE -> create returns (%d x %s)\tmedian %.1f ms, p95 %.1f ms, max %.1f ms\n",
		r.Active.Slices, r.Active.Topology, r.Active.MedianMs, r.Active.P95Ms, r.Active.MaxMs)
	_, _ = fmt.Fprintf(tw, "sandbox start (full-pod inventory)\t%.2f s: %s\n", r.Sandbox.StartMs/1000, strings.Join(r.Sandbox.Parts, ", "))
	_, _ = fmt.Fprintf(tw, "provider start (exec to gRPC connected, %d runs)\tmedian %.1f ms, p95 %.1f ms\n", r.Startup.Runs, r.Startup.StartMedianMs, r.Startup.StartP95Ms)
	_, _ = fmt.Fprintf(tw, "GetProviderSchema\tmedian %.1f ms, p95 %.1f ms, %d bytes\n", r.Startup.SchemaMedianMs, r.Startup.SchemaP95Ms, r.Startup.SchemaBytes)
	_, _ = fmt.Fprintf(tw, "binary size (%s)\t%.1f MiB (%d bytes)\n", r.Startup.BuildFlags, float64(r.Startup.BinaryBytes)/(1<<20), r.Startup.BinaryBytes)
	for _, s := range r.Setup {
		_, _ = fmt.Fprintf(tw, "%s\t%.2f s, %s Kubernetes, %s GKE+Compute requests\n", s.Name, s.MedianMs/1000, summarize(s.Kube), summarize(s.Google))
	}
	_ = tw.Flush()
	_, _ = fmt.Fprintln(w)
}

// writeProfileTable prints where the time of the profiled plan goes, when the
// run has a profile.
func (r *Report) writeProfileTable(w *bytes.Buffer) {
	if r.Profile.Name != "" {
		_, _ = fmt.Fprintf(w, "Where the time of one %s goes (provider served in-process): %.2f s wall\n", r.Profile.Name, r.Profile.WallMs/1000)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		_, _ = fmt.Fprintln(tw, "RPC	calls	total	max")
		var names []string
		for k := range r.Profile.RPCs {
			names = append(names, k)
		}
		sort.Strings(names)
		var total float64
		for _, k := range names {
			t := r.Profile.RPCs[k]
			total += t.TotalMs
			_, _ = fmt.Fprintf(tw, "%s\t%d\t%.1f ms\t%.1f ms\n", k, t.Calls, t.TotalMs, t.MaxMs)
		}
		_, _ = fmt.Fprintf(tw, "all RPCs (concurrent, up to -parallelism)\t\t%.1f ms\t\n", total)
		_ = tw.Flush()
		if c := r.Profile.CPU; c != nil {
			_, _ = fmt.Fprintf(w, "CPU of the provider's side: %.0f ms: in RPCs, framework %.0f ms and handlers+engine %.0f ms; client-go %.0f ms; GC %.0f ms; other %.0f ms (sandbox %.0f ms left out)\n",
				c.SampledMs, c.FrameworkMs, c.ProviderMs, c.KubeClientMs, c.GCMs, c.OtherMs, c.SandboxMs)
		}
		_, _ = fmt.Fprintln(w)
	}
}

// writeGoBenchTable prints the Go benchmarks, when the run has them.
func (r *Report) writeGoBenchTable(w *bytes.Buffer) {
	if len(r.GoBench) > 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		_, _ = fmt.Fprintln(tw, "Go benchmark\ttime/op\tB/op\tallocs/op")
		for _, b := range r.GoBench {
			_, _ = fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f\n", b.Name, nsString(b.NsPerOp), b.BytesPerOp, b.AllocsPerOp)
		}
		_ = tw.Flush()
		_, _ = fmt.Fprintln(w)
	}
}

// writeTargetTable prints the targets and whether they were met.
func (r *Report) writeTargetTable(w *bytes.Buffer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "target\tgoal\tmeasured\tmet")
	for _, t := range r.Targets {
		_, _ = fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, t.Target, t.Measured, yesNo(t.Met))
	}
	_ = tw.Flush()
}

// floorString is a plan's floor and how many times the floor it took, or
// "-" for a command without one.
func floorString(c Measurement) string {
	if floorRatio(c) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f s (%d), %.2f×", c.FloorMedianMs/1000, c.FloorResources, floorRatio(c))
}

// schemaFloorString is a plan's schema floor and how many times it the
// plan took, or "-" for a command without one.
func schemaFloorString(c Measurement) string {
	if schemaFloorRatio(c) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f s (%d), %.2f×", c.SchemaFloorMedianMs/1000, c.SchemaFloorResources, schemaFloorRatio(c))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

func nsString(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.3f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

// summarize is the total requests of each run ("12" or "12-14").
func summarize(runs []map[string]int64) string {
	var lo, hi int64 = -1, 0
	for _, c := range runs {
		var t int64
		for _, v := range c {
			t += v
		}
		if lo < 0 || t < lo {
			lo = t
		}
		hi = max(hi, t)
	}
	if lo < 0 {
		return "0"
	}
	return rangeString(lo, hi)
}

// breakdown lists each key with its count over the runs.
func breakdown(runs []map[string]int64) []string {
	keys := map[string]bool{}
	for _, c := range runs {
		for k := range c {
			keys[k] = true
		}
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var out []string
	for _, k := range sorted {
		out = append(out, fmt.Sprintf("%s\t%s", k, rangeString(countRange(runs, k))))
	}
	return out
}

// requestList is counts as "key n, key n", sorted by key.
func requestList(counts map[string]int64) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}

func rangeString(lo, hi int64) string {
	if lo == hi {
		return strconv.FormatInt(lo, 10)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}
