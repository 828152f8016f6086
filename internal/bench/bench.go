// Package bench measures the provider at full-pod scale on the local
// sandbox: plan and refresh of a 144-pool stack with the Kubernetes and
// GCP API requests they make, the time from the slice controller marking a
// Slice ACTIVE to the provider returning from create, the provider's
// overhead on a node pool apply, its start-up and schema time, its binary
// size, and the Go benchmarks of the pure logic. `make bench` runs it
// through cmd/gke-bench.
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
	// Command is the command line recorded in the report. Default "make bench".
	Command string
	// CPUProfile, when set, is where the CPU profile of this process
	// (sandbox and in-process provider) during the profiled plan goes.
	CPUProfile string
	// Steps, when set, are the only steps run (Steps): to measure one
	// thing quickly. Empty: every step.
	Steps []string
	// Scale is the size of the stack of the plans and the time to ACTIVE
	// as a fraction of a pod, in (0, 1]: 1 (default) plans 144 pools, 0.25
	// 36 (make bench-short, in CI).
	Scale float64
	// Pods are the fleet sizes, in full pods, of the scale step (a sandbox
	// of its own, StepScale): plan, refresh and apply of the stack at each.
	// Empty: no scale step.
	Pods []int
	// MemProfile, when set, is where the heap profile of this process
	// after the scale step's in-process plan of the largest fleet goes.
	MemProfile string
	// ScalePoint, when set, is called with the scale step's figures so
	// far after each fleet size, so that a long run keeps what it measured.
	ScalePoint func(*Scaling)
}

// The steps of a run, in order (Options.Steps).
const (
	// StepStartup is the provider's start-up and schema.
	StepStartup = "startup"
	// StepPoolApply is the apply of 16 pools with emulated operations.
	StepPoolApply = "pool-apply"
	// StepKueue is slices on demand on the Kueue path.
	StepKueue = "kueue"
	// StepPlans is the plans and refreshes of the three stacks, each plan
	// with its floor.
	StepPlans = "plans"
	// StepActive is the time to see ACTIVE and the profiled plan (in
	// process).
	StepActive = "active"
	// StepScale is the plans, refreshes and applies of a fleet of pods
	// (Options.Pods), in a sandbox of its own, after the other steps.
	StepScale = "scale"
)

// Steps are every step of a run, in order.
var Steps = []string{StepStartup, StepPoolApply, StepKueue, StepPlans, StepActive, StepScale}

// runs says whether the run includes step.
func (opts Options) runs(step string) bool {
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

// Run runs every benchmark and returns the report.
func Run(ctx context.Context, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	r := newReport(ctx, opts)

	if !opts.SkipGoBenchmarks {
		r.Settings.GoBenchPackages = goBenchPackages
		opts.step("Go benchmarks (go test -bench)")
		var err error
		if r.GoBench, err = goBenchmarks(ctx, opts.Root); err != nil {
			return nil, err
		}
	}

	if opts.runsPodSteps() {
		if err := runPod(ctx, opts, r); err != nil {
			return nil, err
		}
	}
	if opts.runs(StepScale) && len(opts.Pods) > 0 {
		var err error
		if r.Scale, err = runScale(ctx, opts); err != nil {
			return nil, fmt.Errorf("scale step: %w", err)
		}
	}
	r.Targets = targets(r)
	return r, nil
}

// runsPodSteps says whether the run includes a step on the pod sandbox
// (every step but StepScale).
func (opts Options) runsPodSteps() bool {
	return len(opts.Steps) == 0 || slices.ContainsFunc(opts.Steps, func(s string) bool { return s != StepScale })
}

// runPod runs the steps on the sandbox of one pod, from its start to the
// destroy of the stack.
func runPod(ctx context.Context, opts Options, r *Report) error {
	opts.step("Starting the sandbox with the full-pod inventory (144 sub-blocks)")
	began := time.Now()
	sb, err := startSandbox(ctx, opts.Dir)
	if err != nil {
		return err
	}
	defer sb.Stop()
	r.Sandbox = SandboxStart{StartMs: ms(time.Since(began)), Parts: sb.Parts()}

	m, err := newMeter(ctx, opts, r, sb)
	if err != nil {
		return err
	}
	if err := m.setUp(ctx, opts, r); err != nil {
		return err
	}
	if err := m.measureSteps(ctx, opts, r); err != nil {
		return err
	}
	return m.destroy(ctx, opts, r)
}

// step reports the start of a step on opts.Progress.
func (opts Options) step(format string, args ...any) {
	_, _ = fmt.Fprintf(opts.Progress, "==> "+format+"\n", args...)
}

// newMeter builds the provider into a local mirror and runs terraform init
// (the stack's workspace), measures the provider's start-up when that step
// runs, and, when the plans run, makes the plan floor's and the schema
// floor's workspaces.
func newMeter(ctx context.Context, opts Options, r *Report, sb *sandbox.Sandbox) (*meter, error) {
	opts.step("Building the provider into a local mirror and running terraform init")
	ws, err := newWorkspace(ctx, opts.Root, opts.Dir, podZone, podReservation, podBlock, sb.Env())
	if err != nil {
		return nil, err
	}

	if opts.runs(StepStartup) {
		opts.step("Provider start-up and schema (%d starts)", opts.StartupRuns)
		if r.Startup, err = measureStartup(ctx, ws.binary, opts.StartupRuns); err != nil {
			return nil, err
		}
	}

	m := &meter{sb: sb, ws: ws, stack: stackOf(opts.Scale)}
	if opts.runs(StepPlans) {
		opts.step("Building the plan floor's provider (no-op resources) and running terraform init")
		if m.floor, err = newFloorWorkspace(ctx, opts.Root, opts.Dir, ws); err != nil {
			return nil, err
		}
		opts.step("Building the schema floor's provider (the provider's schemas, no-op handlers) and running terraform init")
		if m.schemaFloor, err = newSchemaFloorWorkspace(ctx, opts.Root, opts.Dir, ws); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// setUp applies the workload policy, then the node pools: with emulated
// GKE operations when the pool apply is measured (r.PoolApply), else
// without, and only when the Kueue or plan steps need them (r.Setup).
func (m *meter) setUp(ctx context.Context, opts Options, r *Report) error {
	opts.step("Workload policy")
	if _, err := m.measure(ctx, "apply policy", 0, 0, "", 1,
		append([]string{"apply", "-input=false", "-no-color", "-auto-approve", "-target=module.stack.gke_workload_policy.this"}, vars(smallPools, 0, "4x4x4", "pod-slice")...)...); err != nil {
		return err
	}

	if opts.runs(StepPoolApply) {
		opts.step("Apply of %d node pools with a %s emulated GKE operation (-parallelism=%d)", smallPools, opts.OperationTime, smallPools)
		return m.poolApply(ctx, r, opts.OperationTime)
	}
	if opts.runs(StepKueue) || opts.runs(StepPlans) {
		opts.step("Apply of %d node pools (no emulated operation time)", smallPools)
		apply, err := m.measure(ctx, fmt.Sprintf("apply %d pools", smallPools), smallPools, 0, "", 1,
			append([]string{"apply", "-input=false", "-no-color", "-auto-approve"}, vars(smallPools, 0, "4x4x4", "pod-slice")...)...)
		if err != nil {
			return err
		}
		r.Setup = append(r.Setup, *apply)
	}
	return nil
}

// measureSteps runs the measuring steps that opts selects, in order: slices
// on demand on the Kueue path, the plans and refreshes, and the time to see
// ACTIVE.
func (m *meter) measureSteps(ctx context.Context, opts Options, r *Report) error {
	if opts.runs(StepKueue) {
		opts.step("Slices on demand on the Kueue path: %d JobSets of %d Jobs on %s slices, one after the other", opts.Runs, kueueBenchJobs, kueueBenchTopology)
		var err error
		if r.Kueue, err = m.kueueOnDemand(ctx, opts.Runs, smallPools); err != nil {
			return fmt.Errorf("slices on demand (Kueue): %w", err)
		}
	}
	if opts.runs(StepPlans) {
		if err := m.plansAndRefreshes(ctx, r, opts.Runs, opts.step); err != nil {
			return err
		}
	}

	if opts.runs(StepActive) {
		opts.step("Time to see ACTIVE: %d slices of 4x8x8 created by an in-process provider", m.stack.slices)
		if err := m.activeLatency(ctx, r, opts.CPUProfile); err != nil {
			return err
		}
	}
	return nil
}

// destroy destroys the stack and records it (r.Setup).
func (m *meter) destroy(ctx context.Context, opts Options, r *Report) error {
	opts.step("Destroying the stack")
	st := m.stack
	destroy, err := m.measure(ctx, "destroy "+stackLabel(st.pools, st.slices, "4x8x8"), st.pools, st.slices, "4x8x8", 1,
		append([]string{"destroy", "-input=false", "-no-color", "-auto-approve"}, vars(st.pools, st.slices, "4x8x8", "active")...)...)
	if err != nil {
		return err
	}
	r.Setup = append(r.Setup, *destroy)
	return nil
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
	return opts
}

// newReport is the report of a run that starts now, with its settings
// and machine and no figures yet.
func newReport(ctx context.Context, opts Options) *Report {
	r := &Report{
		Date:    time.Now().UTC().Format(time.RFC3339),
		Command: opts.Command,
		Settings: Settings{
			Runs:            opts.Runs,
			StartupRuns:     opts.StartupRuns,
			OperationTimeMs: ms(opts.OperationTime),
			Scale:           opts.Scale,
			Pods:            opts.Pods,
		},
		Machine: machine(ctx),
	}
	if r.Command == "" {
		r.Command = "make bench"
	}
	return r
}

// startSandbox starts the sandbox with the full-pod inventory in dir and
// points this process's environment at it.
func startSandbox(ctx context.Context, dir string) (*sandbox.Sandbox, error) {
	sb, err := sandbox.Start(ctx, sandbox.Options{Dir: filepath.Join(dir, "sandbox"), Inventory: sandbox.PodInventory()})
	if err != nil {
		return nil, err
	}
	// The in-process provider (used for the ACTIVE latency) reads its
	// configuration from this process's environment.
	setEnv(sb.Env())
	return sb, nil
}

// setEnv sets this process's environment variables from env (KEY=value
// entries).
func setEnv(env []string) {
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		_ = os.Setenv(name, value) // fails only for an invalid name
	}
}
