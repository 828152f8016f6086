// Command gke-bench measures the provider at full-pod scale on the local
// sandbox and prints a table; with -out it also writes the figures as
// JSON, and with -markdown the benchmarks guide of the run. `make bench`
// runs it and writes both beside templates/guides/benchmarks.md.tmpl.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/bench"
)

func main() {
	var opts bench.Options
	out := flag.String("out", ".cache/bench/results.json", "write the figures as JSON to this file (empty: do not write)")
	markdown := flag.String("markdown", "", "also write the benchmarks guide of this run (the tfplugindocs template of docs/guides/benchmarks.md) to this file")
	from := flag.String("from", "", "measure nothing: read the figures of an earlier run from this JSON file and write its -markdown page (to regenerate the page after a change of its text)")
	scaleFrom := flag.String("scale-from", "", "with -from: put the scale step of the run recorded in this JSON file (gke-bench -steps scale) into -from's figures in place of theirs, write them back to -from, and its -markdown page")
	scaleNote := flag.String("scale-note", "", "with -scale-from: what to say of the scale run's conditions on the page (how loaded the machine was)")
	kueueFrom := flag.String("kueue-from", "", "with -from: put the Kueue step (the reservation's slices on demand and the flex-start flavor) of the run recorded in this JSON file (gke-bench -steps kueue) into -from's figures in place of theirs, write them back to -from, and its -markdown page")
	kueueNote := flag.String("kueue-note", "", "with -kueue-from: what to say of the Kueue run's conditions on the page (how loaded the machine was)")
	flag.StringVar(&opts.Command, "command", "gke-bench", "the command line to record in the figures")
	flag.StringVar(&opts.Dir, "dir", "", "working directory for the sandbox, the provider mirror and Terraform state (default: a new temporary directory, removed at the end)")
	flag.DurationVar(&opts.OperationTime, "operation-time", 30*time.Second, "emulated GKE operation time of the node pool apply")
	flag.IntVar(&opts.Runs, "runs", 3, "runs of each plan and refresh")
	flag.IntVar(&opts.StartupRuns, "startup-runs", 10, "starts of the provider binary")
	flag.BoolVar(&opts.SkipGoBenchmarks, "skip-go-bench", false, "leave out go test -bench")
	flag.StringVar(&opts.CPUProfile, "cpuprofile", "", "write a CPU profile of the sandbox and the in-process provider during the profiled plan to this file")
	flag.Float64Var(&opts.Scale, "scale", 1, "size of the stack of the plans and the time to ACTIVE, as a fraction of a pod in (0, 1]: 1 is 144 pools and 36 slices, 0.25 is 36 pools and 9 slices")
	flag.StringVar(&opts.MemProfile, "memprofile", "", "write the heap profile of this process after the scale step's in-process plan of the largest fleet to this file")
	pods := flag.String("pods", "", "fleet sizes in full pods of the scale step, comma-separated (e.g. 1,2,4: 144, 288 and 576 pools in a sandbox of its own); empty: no scale step")
	steps := flag.String("steps", "", "run only these steps, comma-separated, of "+strings.Join(bench.Steps, ",")+" (default: all); the Go benchmarks are -skip-go-bench's")
	flag.Parse()
	if *steps != "" {
		for _, s := range strings.Split(*steps, ",") {
			if !slices.Contains(bench.Steps, s) {
				fmt.Fprintf(os.Stderr, "gke-bench: -steps: unknown step %q; the steps are %s\n", s, strings.Join(bench.Steps, ", "))
				os.Exit(2)
			}
			opts.Steps = append(opts.Steps, s)
		}
	}

	if *pods != "" {
		for _, p := range strings.Split(*pods, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(p))
			if err != nil || n < 1 {
				fmt.Fprintf(os.Stderr, "gke-bench: -pods: %q is not a number of pods (1 or more)\n", p)
				os.Exit(2)
			}
			opts.Pods = append(opts.Pods, n)
		}
	}
	if opts.Scale <= 0 || opts.Scale > 1 {
		fmt.Fprintf(os.Stderr, "gke-bench: -scale %v is not in (0, 1]\n", opts.Scale)
		os.Exit(2)
	}

	if *from != "" {
		merges := []stepMerge{
			{flag: "-scale-from", file: *scaleFrom, note: *scaleNote, merge: (*bench.Report).MergeScale},
			{flag: "-kueue-from", file: *kueueFrom, note: *kueueNote, merge: (*bench.Report).MergeKueue},
		}
		if err := render(*from, *markdown, merges); err != nil {
			fmt.Fprintln(os.Stderr, "gke-bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(opts, *out, *markdown); err != nil {
		fmt.Fprintln(os.Stderr, "gke-bench:", err)
		os.Exit(1)
	}
}

func run(opts bench.Options, out, markdown string) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "examples", "modules", "slice-stack")); err != nil {
		return fmt.Errorf("run gke-bench from the repository root (make bench): %w", err)
	}
	opts.Root = root
	if opts.Dir == "" {
		dir, err := os.MkdirTemp("", "gke-bench-")
		if err != nil {
			return err
		}
		defer func() { _ = os.RemoveAll(dir) }()
		opts.Dir = dir
	}
	opts.Progress = os.Stderr
	if out != "" {
		// The scale step's figures so far, after each fleet size.
		opts.ScalePoint = func(sc *bench.Scaling) {
			if b, err := json.MarshalIndent(sc, "", "  "); err == nil {
				_ = os.WriteFile(out+".scale-partial", append(b, '\n'), 0o644)
			}
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	report, err := bench.Run(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Println()
	if err := report.WriteTable(os.Stdout); err != nil {
		return err
	}
	if markdown != "" {
		if err := writeFile(markdown, report.WriteMarkdown); err != nil {
			return err
		}
		fmt.Printf("\nBenchmarks guide written to %s\n", markdown)
	}
	if out == "" {
		return nil
	}
	b, err := json.MarshalIndent(report, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("\nFigures written to %s\n", out)
	return nil
}

// stepMerge is a step's figures to put into -from's: the file of the run
// that measured them, what to say of its conditions, and the merge.
type stepMerge struct {
	flag, file, note string
	merge            func(r, run *bench.Report, note string) error
}

// render writes the page of the run recorded in from; with merges, it
// first puts the step of each run recorded there into from's figures and
// writes them back to from.
func render(from, markdown string, merges []stepMerge) error {
	merges = slices.DeleteFunc(merges, func(m stepMerge) bool { return m.file == "" })
	if markdown == "" && len(merges) == 0 {
		return fmt.Errorf("-from needs -markdown, the page to write")
	}
	report, err := readReport(from)
	if err != nil {
		return err
	}
	for _, m := range merges {
		run, err := readReport(m.file)
		if err != nil {
			return err
		}
		if err := m.merge(report, run, m.note); err != nil {
			return fmt.Errorf("%s %s: %w", m.flag, m.file, err)
		}
	}
	if len(merges) > 0 {
		b, err := json.MarshalIndent(report, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(from, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if markdown == "" {
		return nil
	}
	return writeFile(markdown, report.WriteMarkdown)
}

// readReport reads the figures of a run from a JSON file.
func readReport(path string) (*bench.Report, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var report bench.Report
	if err := json.Unmarshal(raw, &report); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &report, nil
}

// writeFile creates path (and its directory) and writes to it with write.
func writeFile(path string, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
