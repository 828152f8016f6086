// Package bench measures the provider at full-pod scale on the local
// sandbox: plan and refresh of a 144-pool stack with the Kubernetes and
// GCP API requests they make, the time from the slice controller marking a
// Slice ACTIVE to the provider returning from create, the provider's
// overhead on a node pool apply, its start-up and schema time, its binary
// size, and the Go benchmarks of the pure logic. `make bench` runs it
// through cmd/gke-bench.
package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
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
)

// Steps are every step of a run, in order.
var Steps = []string{StepStartup, StepPoolApply, StepKueue, StepPlans, StepActive}

// runs says whether the run includes step.
func (opts Options) runs(step string) bool {
	return len(opts.Steps) == 0 || slices.Contains(opts.Steps, step)
}

// Report is everything one run measured.
type Report struct {
	Date      string         `json:"date"`
	Command   string         `json:"command"`
	Settings  Settings       `json:"settings"`
	Machine   Machine        `json:"machine"`
	Startup   Startup        `json:"startup"`
	Sandbox   SandboxStart   `json:"sandbox"`
	PoolApply PoolApply      `json:"poolApply"`
	Kueue     KueueOnDemand  `json:"kueueOnDemand"`
	Commands  []Measurement  `json:"commands"`
	Active    ActiveLatency  `json:"activeLatency"`
	Profile   PlanProfile    `json:"planProfile"`
	Setup     []Measurement  `json:"setup"`
	GoBench   []GoBenchmark  `json:"goBenchmarks"`
	Targets   []TargetResult `json:"targets"`
}

// Settings are the options a run was made with.
type Settings struct {
	Runs            int      `json:"runs"`
	StartupRuns     int      `json:"startupRuns"`
	OperationTimeMs float64  `json:"operationTimeMs"`
	GoBenchPackages []string `json:"goBenchPackages,omitempty"`
}

// Machine describes where the figures were measured.
type Machine struct {
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	MemoryGiB int    `json:"memoryGiB"`
	OS        string `json:"os"`
	Go        string `json:"go"`
	Terraform string `json:"terraform"`
}

// Startup is the provider binary's start-up and schema time.
type Startup struct {
	Runs           int     `json:"runs"`
	StartMedianMs  float64 `json:"startMedianMs"`
	StartP95Ms     float64 `json:"startP95Ms"`
	SchemaMedianMs float64 `json:"schemaMedianMs"`
	SchemaP95Ms    float64 `json:"schemaP95Ms"`
	SchemaBytes    int     `json:"schemaBytes"`
	BinaryBytes    int64   `json:"binaryBytes"`
	BuildFlags     string  `json:"buildFlags"`
}

// SandboxStart is the start of the sandbox (full-pod inventory) the
// benchmarks run against, and the processes it runs.
type SandboxStart struct {
	StartMs float64  `json:"startMs"`
	Parts   []string `json:"parts"`
}

// PoolApply is the apply of node pools with an emulated operation time.
// The ideal is the longest of the pools' GKE operations as the sandbox
// ran them (the emulated delay, then registering the pool's 16 nodes);
// the overhead is the rest of the wall time: Terraform's plan and apply
// walks, the provider's checks, polls and partition waits.
type PoolApply struct {
	Pools       int     `json:"pools"`
	Parallelism int     `json:"parallelism"`
	DelayMs     float64 `json:"emulatedDelayMs"`
	OperationMs float64 `json:"longestOperationMs"`
	WallMs      float64 `json:"wallMs"`
	OverheadMs  float64 `json:"overheadMs"`
	OverheadPct float64 `json:"overheadPercent"`
	// BeforeMs is from the command's start to the first create operation;
	// AfterMs from the last operation's end to the command's end.
	BeforeMs float64 `json:"beforeFirstOperationMs"`
	AfterMs  float64 `json:"afterLastOperationMs"`
	// GoogleRequests are the GKE and Compute requests of the apply
	// (its plan walk included) by "api VERB collection", as in
	// Measurement.Google.
	GoogleRequests map[string]int64 `json:"googleRequests,omitempty"`
}

// RequestsPerPool is the apply's GKE and Compute requests over its pools.
func (p PoolApply) RequestsPerPool() float64 {
	if p.Pools == 0 {
		return 0
	}
	var n int64
	for _, c := range p.GoogleRequests {
		n += c
	}
	return float64(n) / float64(p.Pools)
}

// Measurement is one Terraform command, run one or more times, with the
// API requests of each run by "verb resource" (Kubernetes) and "api VERB
// collection" (GKE and Compute).
type Measurement struct {
	Name     string    `json:"name"`
	Args     []string  `json:"args"`
	Pools    int       `json:"pools"`
	Slices   int       `json:"slices"`
	Topology string    `json:"topology,omitempty"`
	WallMs   []float64 `json:"wallMs"`
	MedianMs float64   `json:"medianMs"`
	// CPUMs is each run's CPU time, user and system, of Terraform and the
	// provider processes it started (see commandTimes).
	CPUMs  []float64          `json:"cpuMs,omitempty"`
	Kube   []map[string]int64 `json:"kubeRequests"`
	Google []map[string]int64 `json:"googleRequests"`
	// The plan floor, for a plan: the same Terraform, with the same flags,
	// planning FloorResources existing resources of a provider whose
	// handlers do no work (internal/bench/floor).
	FloorResources int       `json:"floorResources,omitempty"`
	FloorWallMs    []float64 `json:"floorWallMs,omitempty"`
	FloorMedianMs  float64   `json:"floorMedianMs,omitempty"`
	FloorCPUMs     []float64 `json:"floorCpuMs,omitempty"`
	// The schema floor, for a plan: the same Terraform, with the same
	// flags, planning the stack's own SchemaFloorResources resources (a
	// copy of its state and configuration's values) through a provider
	// with the stack's schemas whose handlers do no work
	// (internal/bench/floor.NewSchemaFloor).
	SchemaFloorResources int       `json:"schemaFloorResources,omitempty"`
	SchemaFloorWallMs    []float64 `json:"schemaFloorWallMs,omitempty"`
	SchemaFloorMedianMs  float64   `json:"schemaFloorMedianMs,omitempty"`
	SchemaFloorCPUMs     []float64 `json:"schemaFloorCpuMs,omitempty"`
}

// ActiveLatency is the time from the simulator's status update that
// marked each Slice ACTIVE to the provider's create of it returning.
type ActiveLatency struct {
	Slices   int       `json:"slices"`
	Topology string    `json:"topology"`
	MedianMs float64   `json:"medianMs"`
	P95Ms    float64   `json:"p95Ms"`
	MaxMs    float64   `json:"maxMs"`
	Samples  []float64 `json:"samplesMs"`
	// Throttling is client-go's rate limiter during the apply that
	// created the slices (nil in runs from before it was recorded).
	Throttling *ClientThrottling `json:"clientThrottling,omitempty"`
}

// PlanProfile splits one plan between Terraform and the provider: the
// provider served in-process, with the time of each RPC (RPCs run
// concurrently, up to -parallelism, so their sum can exceed the wall).
type PlanProfile struct {
	Name   string             `json:"name"`
	WallMs float64            `json:"wallMs"`
	RPCs   map[string]RPCTime `json:"rpcs"`
	// Throttling is client-go's rate limiter during the plan (nil in runs
	// from before it was recorded).
	Throttling *ClientThrottling `json:"clientThrottling,omitempty"`
	// CPU is where the CPU of the provider's side of the plan went (nil
	// in runs from before it was recorded).
	CPU *CPUSplit `json:"cpu,omitempty"`
	// Phases is when the provider served each kind of RPC, from the
	// plan's start (nil in runs from before it was recorded).
	Phases []RPCPhase `json:"phases,omitempty"`
}

// GoBenchmark is one `go test -bench` result.
type GoBenchmark struct {
	Name        string  `json:"name"`
	NsPerOp     float64 `json:"nsPerOp"`
	BytesPerOp  float64 `json:"bytesPerOp"`
	AllocsPerOp float64 `json:"allocsPerOp"`
}

// TargetResult compares a figure with its target.
type TargetResult struct {
	Name     string `json:"name"`
	Target   string `json:"target"`
	Measured string `json:"measured"`
	Met      bool   `json:"met"`
	// How is how the figure was measured: outOfProcess, inProcess or
	// goBench (see the constants).
	How string `json:"how"`
}

// How a figure was measured.
const (
	// OutOfProcess: the real terraform CLI, with the release build of the
	// provider started by Terraform as its own process, as users run it.
	OutOfProcess = "outOfProcess"
	// InProcess: the real terraform CLI attached (TF_REATTACH_PROVIDERS) to
	// the provider served by tf6server inside the benchmark process, so
	// its RPCs can be timed and share a clock with the slice simulator.
	InProcess = "inProcess"
	// GoBench: go test -bench of the pure logic, no I/O.
	GoBench = "goBench"
)

// The pod inventory's one block.
const (
	podZone        = "us-central1-a"
	podReservation = "tpu7x-pod-reservation"
	podBlock       = "pod-block"
	podSubBlocks   = 144
	smallPools     = 16
	activeSlices   = 36
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

	opts.step("Starting the sandbox with the full-pod inventory (144 sub-blocks)")
	began := time.Now()
	sb, err := startSandbox(ctx, opts.Dir)
	if err != nil {
		return nil, err
	}
	defer sb.Stop()
	r.Sandbox = SandboxStart{StartMs: ms(time.Since(began)), Parts: sb.Parts()}

	m, err := newMeter(ctx, opts, r, sb)
	if err != nil {
		return nil, err
	}
	if err := m.setUp(ctx, opts, r); err != nil {
		return nil, err
	}
	if err := m.measureSteps(ctx, opts, r); err != nil {
		return nil, err
	}
	if err := m.destroy(ctx, opts, r); err != nil {
		return nil, err
	}
	r.Targets = targets(r)
	return r, nil
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

	m := &meter{sb: sb, ws: ws}
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
		opts.step("Time to see ACTIVE: %d slices of 4x8x8 created by an in-process provider", activeSlices)
		if err := m.activeLatency(ctx, r, opts.CPUProfile); err != nil {
			return err
		}
	}
	return nil
}

// destroy destroys the stack and records it (r.Setup).
func (m *meter) destroy(ctx context.Context, opts Options, r *Report) error {
	opts.step("Destroying the stack")
	destroy, err := m.measure(ctx, "destroy "+stackLabel(podSubBlocks, activeSlices, "4x8x8"), podSubBlocks, activeSlices, "4x8x8", 1,
		append([]string{"destroy", "-input=false", "-no-color", "-auto-approve"}, vars(podSubBlocks, activeSlices, "4x8x8", "active")...)...)
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
	for _, kv := range sb.Env() {
		name, value, _ := strings.Cut(kv, "=")
		if err := os.Setenv(name, value); err != nil {
			sb.Stop()
			return nil, err
		}
	}
	return sb, nil
}

// poolApply applies smallPools node pools at once with GKE operations
// that take operationTime, and records the apply (r.PoolApply, r.Setup).
func (m *meter) poolApply(ctx context.Context, r *Report, operationTime time.Duration) error {
	faults := m.sb.Faults()
	faults.OperationDelayMs = int(operationTime / time.Millisecond)
	m.sb.SetFaults(faults)
	began := time.Now()
	apply16, err := m.measure(ctx, fmt.Sprintf("apply %d pools", smallPools), smallPools, 0, "", 1,
		append([]string{"apply", "-input=false", "-no-color", "-auto-approve", fmt.Sprintf("-parallelism=%d", smallPools)}, vars(smallPools, 0, "4x4x4", "pod-slice")...)...)
	ended := time.Now()
	faults.OperationDelayMs = 0
	m.sb.SetFaults(faults)
	if err != nil {
		return err
	}
	if r.PoolApply, err = poolApply(m.sb.Operations(), began, ended, operationTime); err != nil {
		return err
	}
	if len(apply16.Google) > 0 {
		r.PoolApply.GoogleRequests = apply16.Google[0]
	}
	r.Setup = append(r.Setup, *apply16)
	return nil
}

// plansAndRefreshes applies each stack in turn (16 pools; 144 pools with
// one 16x24x24 slice; 144 pools with 36 4x8x8 slices) and measures runs
// plans and refreshes of it (r.Commands, r.Setup).
func (m *meter) plansAndRefreshes(ctx context.Context, r *Report, runs int, step func(format string, args ...any)) error {
	stacks := []struct {
		pools, slices int
		topology      string
	}{
		{smallPools, 0, ""},
		{podSubBlocks, 1, "16x24x24"},
		{podSubBlocks, activeSlices, "4x8x8"},
	}
	for i, s := range stacks {
		label := stackLabel(s.pools, s.slices, s.topology)
		topo := s.topology
		if topo == "" {
			topo = "4x4x4"
		}
		v := vars(s.pools, s.slices, topo, "pod-slice")
		if i > 0 {
			if stacks[i-1].slices > 0 {
				step("Removing the previous slices")
				if _, err := m.measure(ctx, "remove slices", s.pools, 0, "", 1,
					append([]string{"apply", "-input=false", "-no-color", "-auto-approve"}, vars(s.pools, 0, topo, "pod-slice")...)...); err != nil {
					return err
				}
			}
			step("Apply of %s", label)
			setup, err := m.measure(ctx, "apply "+label, s.pools, s.slices, s.topology, 1,
				append([]string{"apply", "-input=false", "-no-color", "-auto-approve"}, v...)...)
			if err != nil {
				return err
			}
			r.Setup = append(r.Setup, *setup)
		}
		step("plan of %s, its floor (%d no-op resources) and its schema floor (%d runs each, in turn)", label, floorResources(s.pools, s.slices), runs)
		plan, err := m.planWithFloor(ctx, "plan "+label, s.pools, s.slices, s.topology, runs, planFlags(v...))
		if err != nil {
			return err
		}
		step("refresh of %s (%d runs)", label, runs)
		refresh, err := m.measure(ctx, "refresh "+label, s.pools, s.slices, s.topology, runs,
			append([]string{"apply", "-refresh-only", "-input=false", "-no-color", "-auto-approve"}, v...)...)
		if err != nil {
			return err
		}
		r.Commands = append(r.Commands, *plan, *refresh)
	}
	return nil
}

// activeLatency removes the slices and has an in-process provider create
// activeSlices slices of 4x8x8, timing when it sees each ACTIVE and
// profiling a plan (r.Active, r.Profile).
func (m *meter) activeLatency(ctx context.Context, r *Report, cpuProfile string) error {
	if _, err := m.measure(ctx, "remove slices", podSubBlocks, 0, "", 1,
		append([]string{"apply", "-input=false", "-no-color", "-auto-approve"}, vars(podSubBlocks, 0, "4x8x8", "active")...)...); err != nil {
		return err
	}
	var err error
	r.Active, r.Profile, err = m.inProcessRuns(ctx, activeSlices, "4x8x8", cpuProfile)
	return err
}

// poolApply compares the wall time of the pool apply that ran from began
// to ended with the GKE operations it started.
func poolApply(ops []sandbox.OperationRecord, began, ended time.Time, delay time.Duration) (PoolApply, error) {
	p := PoolApply{Pools: smallPools, Parallelism: smallPools, DelayMs: ms(delay), WallMs: ms(ended.Sub(began))}
	var first, last time.Time
	n := 0
	for _, op := range ops {
		if op.Type != "CREATE_NODE_POOL" || op.Started.Before(began) {
			continue
		}
		if !op.Done || op.Error != "" {
			return p, fmt.Errorf("node pool operation %s did not succeed: %s", op.Name, op.Error)
		}
		n++
		p.OperationMs = max(p.OperationMs, ms(op.Ended.Sub(op.Started)))
		if first.IsZero() || op.Started.Before(first) {
			first = op.Started
		}
		if op.Ended.After(last) {
			last = op.Ended
		}
	}
	if n != smallPools {
		return p, fmt.Errorf("the apply started %d node pool operations, want %d", n, smallPools)
	}
	p.OverheadMs = p.WallMs - p.OperationMs
	p.OverheadPct = 100 * p.OverheadMs / p.OperationMs
	p.BeforeMs, p.AfterMs = ms(first.Sub(began)), ms(ended.Sub(last))
	return p, nil
}

func stackLabel(pools, slices int, topology string) string {
	switch slices {
	case 0:
		return fmt.Sprintf("%d pools", pools)
	case 1:
		return fmt.Sprintf("%d pools + 1 slice %s", pools, topology)
	}
	return fmt.Sprintf("%d pools + %d slices %s", pools, slices, topology)
}

// meter runs Terraform commands and counts the API requests each makes.
type meter struct {
	sb *sandbox.Sandbox
	ws *workspace
	// floor is the plan floor's workspace (newFloorWorkspace), schemaFloor
	// the schema floor's (newSchemaFloorWorkspace).
	floor, schemaFloor *workspace
}

func (m *meter) measure(ctx context.Context, name string, pools, sliceCount int, topology string, runs int, args ...string) (*Measurement, error) {
	out := &Measurement{Name: name, Args: args, Pools: pools, Slices: sliceCount, Topology: topology}
	for range runs {
		kube, google := m.sb.KubeRequestCounts(), m.sb.RequestCounts()
		took, err := m.ws.timedTerraform(ctx, nil, args...)
		if err != nil {
			var exit *exec.ExitError
			if errors.As(err, &exit) && exit.ExitCode() == 2 && slices.Contains(args, "-detailed-exitcode") {
				return nil, fmt.Errorf("%s: the plan is not empty after apply (a provider bug): %w", name, err)
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out.WallMs, out.CPUMs = append(out.WallMs, ms(took.wall)), append(out.CPUMs, ms(took.cpu))
		out.Kube = append(out.Kube, diff(m.sb.KubeRequestCounts(), kube))
		out.Google = append(out.Google, diff(m.sb.RequestCounts(), google))
	}
	out.MedianMs = percentile(out.WallMs, 50)
	return out, nil
}

// inProcessRuns serves the provider from this process. It creates n
// slices and compares when each create returned with when the simulator
// marked the Slice ACTIVE; then it plans the stack and times the RPCs.
// (These come last: a provider served in-process keeps its informers
// until this program ends, unlike a provider process.)
func (m *meter) inProcessRuns(ctx context.Context, n int, topology, cpuProfile string) (ActiveLatency, PlanProfile, error) {
	res := ActiveLatency{Slices: n, Topology: topology}
	var profile PlanProfile
	reattach, srv, stop, err := inProcess(ctx)
	if err != nil {
		return res, profile, err
	}
	defer stop()
	env := []string{"TF_REATTACH_PROVIDERS=" + reattach}
	v := vars(podSubBlocks, n, topology, "active")
	limiter := clientWaits()
	limiter.take()
	if _, err := m.ws.terraform(ctx, env, append([]string{"apply", "-input=false", "-no-color", "-auto-approve"}, v...)...); err != nil {
		return res, profile, err
	}
	applyThrottling := limiter.take()
	res.Throttling = &applyThrottling
	returned := srv.createReturned()
	for i := range n {
		name := fmt.Sprintf("active-%02d", i)
		active, ok := m.sb.SliceMarkedActive(name)
		done, created := returned[name]
		if !ok || !created {
			return res, profile, fmt.Errorf("slice %s: marked ACTIVE %v, create returned %v", name, ok, created)
		}
		res.Samples = append(res.Samples, ms(done.Sub(active)))
	}
	res.MedianMs = percentile(res.Samples, 50)
	res.P95Ms = percentile(res.Samples, 95)
	res.MaxMs = slices.Max(res.Samples)

	srv.rpcTimes() // start afresh
	limiter.take()
	profile.Name = "plan " + stackLabel(podSubBlocks, n, topology)
	// The plan is always profiled, to split its CPU (CPUSplit); the
	// profile is also written out when asked for.
	var cpu bytes.Buffer
	if err := pprof.StartCPUProfile(&cpu); err != nil {
		return res, profile, err
	}
	began := time.Now()
	took, err := m.ws.terraform(ctx, env, planFlags(v...)...)
	pprof.StopCPUProfile()
	if err != nil {
		return res, profile, fmt.Errorf("%s (in-process): %w", profile.Name, err)
	}
	if cpuProfile != "" {
		if err := os.WriteFile(cpuProfile, cpu.Bytes(), 0o644); err != nil {
			return res, profile, err
		}
	}
	split, err := splitCPU(cpu.Bytes())
	if err != nil {
		return res, profile, err
	}
	var spans []span
	profile.RPCs, spans = srv.rpcTimes()
	profile.WallMs, profile.CPU, profile.Phases = ms(took), &split, phases(spans, began)
	throttling := limiter.take()
	profile.Throttling = &throttling
	return res, profile, nil
}

func measureStartup(ctx context.Context, binary string, runs int) (Startup, error) {
	st := Startup{Runs: runs, BuildFlags: `CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" (as .goreleaser.yml)`}
	info, err := os.Stat(binary)
	if err != nil {
		return st, err
	}
	st.BinaryBytes = info.Size()
	var start, schema []float64
	for range runs {
		run, err := startProvider(ctx, binary)
		if err != nil {
			return st, err
		}
		start = append(start, ms(run.Start))
		schema = append(schema, ms(run.Schema))
		st.SchemaBytes = run.SchemaBytes
	}
	st.StartMedianMs, st.StartP95Ms = percentile(start, 50), percentile(start, 95)
	st.SchemaMedianMs, st.SchemaP95Ms = percentile(schema, 50), percentile(schema, 95)
	return st, nil
}

func diff(after, before map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// percentile is the nearest-rank percentile p (0..100] of xs.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	rank := int(float64(len(s))*p/100+0.999999) - 1
	rank = max(0, min(rank, len(s)-1))
	return s[rank]
}

func machine(ctx context.Context) Machine {
	m := Machine{Cores: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, Go: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			m.MemoryGiB = (kb + 512*1024) / (1024 * 1024)
		}
	}
	if out, err := exec.CommandContext(ctx, "terraform", "version").Output(); err == nil {
		m.Terraform = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	return m
}
