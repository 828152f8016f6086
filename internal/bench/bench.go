// Package bench measures the provider on the local sandbox (make bench,
// through cmd/gke-bench): plan and refresh of a full pod's stack (144
// node pools) and of a growing fleet of pods, with the Kubernetes, GKE and
// Compute requests each makes and its CPU and memory; the time from the
// slice controller marking a Slice ACTIVE to the provider's create
// returning; the provider's overhead on a node pool apply; slices on
// demand on the Kueue path; start-up, schema and binary size; and the Go
// benchmarks of the pure logic. Its figures go to a JSON file
// (templates/guides/benchmarks.json), and the benchmarks guide shows them
// as tables (page.go, guide.md.tmpl). Terraform runs through
// internal/tfrun, as in the acceptance tests.
package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// Options configure a benchmark run.
type Options struct {
	// Root is the repository root (the provider is built from it and the
	// stack uses its slice-stack module).
	Root string
	// Dir is the working directory (sandbox, mirror, Terraform state).
	Dir string
	// OperationTime is the emulated GKE operation time of the node pool
	// apply. Default 30s.
	OperationTime time.Duration
	// Runs is how many times each plan and refresh is measured. Default 3.
	Runs int
	// StartupRuns is how many times the binary is started. Default 10.
	StartupRuns int
	// SkipGoBenchmarks leaves out `go test -bench`.
	SkipGoBenchmarks bool
	// Progress receives one line per step.
	Progress io.Writer
	// Command is the command line recorded in the report.
	Command string
	// CPUProfile, when set, is where the CPU profile of this process
	// (sandbox and in-process provider) during the in-process plan goes.
	CPUProfile string
	// Steps, when set, are the only steps run. Empty: every step.
	Steps []string
	// Scale is the size of the pod's stack as a fraction of a pod, in
	// (0, 1]: 1 (default) plans 144 pools, 0.25 36 (make bench-short).
	Scale float64
	// Pods are the fleet sizes, in full pods, of the scale step (a sandbox
	// of its own). Empty: no scale step.
	Pods []int
}

// The steps of a run, in order (Options.Steps).
const (
	StepGoBench   = "go-bench"   // go test -bench of the pure logic
	StepStartup   = "startup"    // the provider's start-up and schema
	StepPoolApply = "pool-apply" // the apply of 16 pools with emulated operations
	StepKueue     = "kueue"      // slices on demand on the Kueue path
	StepPlans     = "plans"      // plans (with their floors) and refreshes
	StepActive    = "active"     // time to see ACTIVE, and an in-process plan
	StepScale     = "scale"      // plans, refreshes and applies of a fleet of pods
)

// Steps are every step of a run, in order.
var Steps = []string{StepGoBench, StepStartup, StepPoolApply, StepKueue, StepPlans, StepActive, StepScale}

// runs says whether the run includes step.
func (opts Options) runs(step string) bool {
	if step == StepGoBench && opts.SkipGoBenchmarks || step == StepScale && len(opts.Pods) == 0 {
		return false
	}
	return len(opts.Steps) == 0 || slices.Contains(opts.Steps, step)
}

// The pod inventory's one block.
const (
	podZone        = "us-central1-a"
	podReservation = "tpu7x-pod-reservation"
	podBlock       = "pod-block"
	podSubBlocks   = 144
	smallPools     = 16
	// hostsPerSubBlock is a sub-block's hosts: a node pool's nodes.
	hostsPerSubBlock = 16
)

// Run runs the steps opts selects and returns their figures.
func Run(ctx context.Context, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	r := &Report{Runs: map[string]Measured{}}
	if opts.runs(StepGoBench) {
		opts.step("Go benchmarks (go test -bench)")
		var err error
		if r.GoBench, err = goBenchmarks(ctx, opts.Root); err != nil {
			return nil, err
		}
	}
	if slices.ContainsFunc([]string{StepStartup, StepPoolApply, StepKueue, StepPlans, StepActive}, opts.runs) {
		if err := runPod(ctx, opts, r); err != nil {
			return nil, err
		}
	}
	if opts.runs(StepScale) {
		var err error
		if r.Scale, err = runScale(ctx, opts); err != nil {
			return nil, fmt.Errorf("scale step: %w", err)
		}
	}
	how := Measured{Date: time.Now().UTC().Format(time.RFC3339), Command: opts.Command, Machine: machine(ctx),
		Settings: Settings{Runs: opts.Runs, StartupRuns: opts.StartupRuns, OperationTimeMs: ms(opts.OperationTime), Scale: opts.Scale, Pods: opts.Pods}}
	for _, step := range Steps {
		if opts.runs(step) {
			r.Runs[step] = how
		}
	}
	return r, nil
}

// runPod runs the steps on the sandbox of one pod, from its start to the
// destroy of the stack.
func runPod(ctx context.Context, opts Options, r *Report) error {
	opts.step("Starting the sandbox with the full-pod inventory (144 sub-blocks)")
	sb, err := sandbox.Start(ctx, sandbox.Options{Dir: filepath.Join(opts.Dir, "sandbox"), Inventory: sandbox.PodInventory()})
	if err != nil {
		return err
	}
	defer sb.Stop()
	// The in-process provider (StepActive) reads its configuration from
	// this process's environment.
	for _, kv := range sb.Env() {
		name, value, _ := strings.Cut(kv, "=")
		_ = os.Setenv(name, value) // fails only for an invalid name
	}
	opts.step("Building the provider and the floor's provider into a local mirror, terraform init")
	m, err := newMeter(ctx, opts, opts.Dir, sb)
	if err != nil {
		return err
	}
	if opts.runs(StepStartup) {
		opts.step("Provider start-up and schema (%d starts)", opts.StartupRuns)
		if r.Startup, err = measureStartup(ctx, m.binary, opts.StartupRuns); err != nil {
			return err
		}
	}
	opts.step("Workload policy")
	if _, err := m.apply(ctx, "apply policy", smallPools, 0, "-target=module.stack.gke_workload_policy.this"); err != nil {
		return err
	}
	switch {
	case opts.runs(StepPoolApply):
		opts.step("Apply of %d node pools with a %s emulated GKE operation (-parallelism=%d)", smallPools, opts.OperationTime, smallPools)
		if r.PoolApply, err = m.poolApply(ctx, opts.OperationTime); err != nil {
			return err
		}
	case opts.runs(StepKueue) || opts.runs(StepPlans):
		opts.step("Apply of %d node pools (no emulated operation time)", smallPools)
		if _, err := m.apply(ctx, "apply", smallPools, 0); err != nil {
			return err
		}
	}
	if opts.runs(StepKueue) {
		opts.step("Slices on demand on the Kueue path: %d JobSets of %d Jobs on %s slices, then the flex-start flavor", opts.Runs, kueueJobs, kueueTopology)
		if r.Kueue, err = m.kueue(ctx, opts.Runs, smallPools); err != nil {
			return fmt.Errorf("slices on demand (Kueue): %w", err)
		}
	}
	if opts.runs(StepPlans) {
		if r.Commands, err = m.plansAndRefreshes(ctx, opts); err != nil {
			return err
		}
	}
	if opts.runs(StepActive) {
		opts.step("Time to see ACTIVE: %d slices of 4x8x8 created by an in-process provider, then its plan", m.stack.slices)
		if r.Active, err = m.active(ctx, opts.CPUProfile); err != nil {
			return err
		}
	}
	opts.step("Destroying the stack")
	_, err = m.ws.terraform(ctx, nil, append([]string{"destroy", "-input=false", "-no-color", "-auto-approve"}, m.vars(m.stack.pools, m.stack.slices, "active")...)...)
	return err
}

// step reports the start of a step on opts.Progress.
func (opts Options) step(format string, args ...any) {
	_, _ = fmt.Fprintf(opts.Progress, "==> "+format+"\n", args...)
}

// withDefaults fills in the options left zero.
func (opts Options) withDefaults() Options {
	if opts.OperationTime == 0 {
		opts.OperationTime = 30 * time.Second
	}
	if opts.Runs == 0 {
		opts.Runs = 3
	}
	if opts.StartupRuns == 0 {
		opts.StartupRuns = 10
	}
	if opts.Scale <= 0 || opts.Scale > 1 {
		opts.Scale = 1
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	if opts.Command == "" {
		opts.Command = "make bench"
	}
	return opts
}
