package bench

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

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
	r.writeScaleTable(w)
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
