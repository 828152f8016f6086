package bench

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
	// Scale is the scale step's figures (nil when it did not run).
	Scale *Scaling `json:"scale,omitempty"`
}

// Settings are the options a run was made with.
type Settings struct {
	Runs            int     `json:"runs"`
	StartupRuns     int     `json:"startupRuns"`
	OperationTimeMs float64 `json:"operationTimeMs"`
	// Scale is Options.Scale (0 in runs from before it was recorded: 1).
	Scale float64 `json:"scale,omitempty"`
	// Pods are Options.Pods, the scale step's fleet sizes.
	Pods            []int    `json:"pods,omitempty"`
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
	CPUMs []float64 `json:"cpuMs,omitempty"`
	// ProviderCPUMs and ProviderPeakRSSMiB are each run's CPU time of the
	// provider processes Terraform started (sampled from /proc every
	// 20 ms, procwatch.go) and the peak resident set of the largest.
	ProviderCPUMs      []float64 `json:"providerCpuMs,omitempty"`
	ProviderPeakRSSMiB []float64 `json:"providerPeakRssMiB,omitempty"`
	// SandboxCPUMs is each run's CPU time of the sandbox meanwhile: the
	// bench's own process, where the emulated APIs run, and the processes
	// it started before the run (kube-apiserver, etcd, kwok...).
	SandboxCPUMs []float64          `json:"sandboxCpuMs,omitempty"`
	Kube         []map[string]int64 `json:"kubeRequests"`
	Google       []map[string]int64 `json:"googleRequests"`
	// The plan floor, for a plan: the same Terraform, with the same flags,
	// planning FloorResources existing resources of a provider whose
	// handlers do no work (internal/bench/floor).
	FloorResources int       `json:"floorResources,omitempty"`
	FloorWallMs    []float64 `json:"floorWallMs,omitempty"`
	FloorMedianMs  float64   `json:"floorMedianMs,omitempty"`
	FloorCPUMs     []float64 `json:"floorCpuMs,omitempty"`
	// FloorSandboxCPUMs is the sandbox's CPU time during each floor run,
	// as SandboxCPUMs: the floor sends it nothing, so this is its
	// background work.
	FloorSandboxCPUMs []float64 `json:"floorSandboxCpuMs,omitempty"`
	// The schema floor, for a plan: the same Terraform, with the same
	// flags, planning the stack's own SchemaFloorResources resources (a
	// copy of its state and configuration's values) through a provider
	// with the stack's schemas whose handlers do no work
	// (internal/bench/floor.NewSchemaFloor).
	SchemaFloorResources int       `json:"schemaFloorResources,omitempty"`
	SchemaFloorWallMs    []float64 `json:"schemaFloorWallMs,omitempty"`
	SchemaFloorMedianMs  float64   `json:"schemaFloorMedianMs,omitempty"`
	SchemaFloorCPUMs     []float64 `json:"schemaFloorCpuMs,omitempty"`
	// The schema floor's provider process: CPU time and peak resident set
	// of each run, as ProviderCPUMs and ProviderPeakRSSMiB.
	SchemaFloorProviderCPUMs []float64 `json:"schemaFloorProviderCpuMs,omitempty"`
	SchemaFloorPeakRSSMiB    []float64 `json:"schemaFloorPeakRssMiB,omitempty"`
	// SchemaFloorSandboxCPUMs is the sandbox's CPU time during each
	// schema floor run, as FloorSandboxCPUMs.
	SchemaFloorSandboxCPUMs []float64 `json:"schemaFloorSandboxCpuMs,omitempty"`
	// SchemaFloorSandboxPartCPUMs is SchemaFloorSandboxCPUMs split by the
	// sandbox's part (the program's name, or InProcessPart): each run's
	// CPU time of each, so that the background work is told by its part.
	SchemaFloorSandboxPartCPUMs map[string][]float64 `json:"schemaFloorSandboxPartCpuMs,omitempty"`
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
