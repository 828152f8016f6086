// Command gke-bench measures the provider on the local sandbox
// (internal/bench) and prints the figures as the tables of the benchmarks
// guide; with -out it also writes them as JSON (with -merge, in place of
// the same steps' figures in that file), and with -markdown the guide of
// the figures written. -from renders the guide of a JSON file without
// measuring (make bench-page).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
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
	merge := flag.Bool("merge", false, "put the figures of the steps run in place of those steps' figures in -out, keeping the others")
	markdown := flag.String("markdown", "", "write the benchmarks guide of the figures written to -out (or read from -from) to this file")
	from := flag.String("from", "", "measure nothing: read the figures from this JSON file and write the -markdown guide of them")
	note := flag.String("note", "", "what to say on the guide of the machine's conditions during this run (default: its load average before and after the run)")
	flag.StringVar(&opts.Command, "command", "gke-bench", "the command line to record in the figures")
	flag.StringVar(&opts.Dir, "dir", "", "working directory for the sandbox, the provider mirror and Terraform state (default: a new temporary directory, removed at the end)")
	flag.DurationVar(&opts.OperationTime, "operation-time", 30*time.Second, "emulated GKE operation time of the node pool apply")
	flag.IntVar(&opts.Runs, "runs", 3, "runs of each plan and refresh")
	flag.IntVar(&opts.StartupRuns, "startup-runs", 10, "starts of the provider binary")
	flag.BoolVar(&opts.SkipGoBenchmarks, "skip-go-bench", false, "leave out go test -bench")
	flag.StringVar(&opts.CPUProfile, "cpuprofile", "", "write a CPU profile of the sandbox and the in-process provider during the in-process plan to this file")
	flag.Float64Var(&opts.Scale, "scale", 1, "size of the pod's stack as a fraction of a pod in (0, 1]: 1 is 144 pools and 36 slices, 0.25 is 36 pools and 9 slices")
	pods := flag.String("pods", "", "fleet sizes in full pods of the scale step, comma-separated (e.g. 1,2,4: 144, 288 and 576 pools in a sandbox of its own); empty: no scale step")
	steps := flag.String("steps", "", "run only these steps, comma-separated, of "+strings.Join(bench.Steps, ",")+" (default: all)")
	flag.Parse()
	if err := parseLists(&opts, *steps, *pods); err != nil {
		fmt.Fprintln(os.Stderr, "gke-bench:", err)
		os.Exit(2)
	}
	var err error
	if *from != "" {
		err = render(*from, *markdown)
	} else {
		err = run(opts, *out, *merge, *markdown, *note)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gke-bench:", err)
		os.Exit(1)
	}
}

// parseLists reads -steps and -pods into opts, and checks -scale.
func parseLists(opts *bench.Options, steps, pods string) error {
	for _, s := range strings.FieldsFunc(steps, func(r rune) bool { return r == ',' }) {
		if !slices.Contains(bench.Steps, s) {
			return fmt.Errorf("-steps: unknown step %q; the steps are %s", s, strings.Join(bench.Steps, ", "))
		}
		opts.Steps = append(opts.Steps, s)
	}
	for _, p := range strings.FieldsFunc(pods, func(r rune) bool { return r == ',' }) {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			return fmt.Errorf("-pods: %q is not a number of pods (1 or more)", p)
		}
		opts.Pods = append(opts.Pods, n)
	}
	if opts.Scale <= 0 || opts.Scale > 1 {
		return fmt.Errorf("-scale %v is not in (0, 1]", opts.Scale)
	}
	return nil
}

// run measures, prints the tables of the run, and writes the figures
// (merged into out's with merge) and their guide.
func run(opts bench.Options, out string, merge bool, markdown, note string) error {
	root, err := os.Getwd()
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(root, "examples", "modules", "slice-stack")); err != nil {
		return fmt.Errorf("run gke-bench from the repository root (make bench): %w", err)
	}
	opts.Root, opts.Progress = root, os.Stderr
	if opts.Dir == "" {
		if opts.Dir, err = os.MkdirTemp("", "gke-bench-"); err != nil {
			return err
		}
		defer func() { _ = os.RemoveAll(opts.Dir) }()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	before := loadAverage()
	report, err := bench.Run(ctx, opts)
	if err != nil {
		return err
	}
	if note == "" && before != "" {
		note = fmt.Sprintf("load average %s before the run and %s after it", before, loadAverage())
	}
	for step, how := range report.Runs {
		how.Note = note
		report.Runs[step] = how
	}
	fmt.Println()
	if err := report.WriteMarkdown(os.Stdout); err != nil {
		return err
	}
	if out == "" {
		return nil
	}
	if merge {
		earlier, err := readReport(out)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if earlier != nil {
			earlier.Merge(report)
			report = earlier
		}
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
	if markdown == "" {
		return nil
	}
	return render(out, markdown)
}

// loadAverage is the machine's load averages over 1, 5 and 15 minutes
// (empty where /proc/loadavg is not).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return ""
}

// render writes the guide of the figures in the JSON file from.
func render(from, markdown string) error {
	if markdown == "" {
		return fmt.Errorf("-from needs -markdown, the page to write")
	}
	report, err := readReport(from)
	if err != nil {
		return err
	}
	f, err := os.Create(markdown)
	if err != nil {
		return err
	}
	if err := report.WriteMarkdown(f); err != nil {
		_ = f.Close()
		return err
	}
	fmt.Printf("Benchmarks guide written to %s\n", markdown)
	return f.Close()
}

// readReport reads figures from a JSON file.
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
