package bench

// Report is the figures of a run, each step's with where and how it was
// measured (Runs). A run of some steps (Options.Steps) replaces those
// steps' figures in an earlier report (Merge), so that one JSON file holds
// the latest figures of every step.
type Report struct {
	// Runs say, by step (Steps), when, by which command
	// and on which machine the step's figures were measured.
	Runs      map[string]Measured `json:"runs"`
	Startup   *Startup            `json:"startup,omitempty"`
	PoolApply *PoolApply          `json:"poolApply,omitempty"`
	Kueue     *Kueue              `json:"kueue,omitempty"`
	// Commands are the plans and refreshes of the pod's stacks.
	Commands []Measurement `json:"commands,omitempty"`
	Active   *Active       `json:"active,omitempty"`
	GoBench  []GoBenchmark `json:"goBenchmarks,omitempty"`
	Scale    *Scaling      `json:"scale,omitempty"`
}

// Measured is where and how a step was measured.
type Measured struct {
	Date     string   `json:"date"`
	Command  string   `json:"command"`
	Machine  Machine  `json:"machine"`
	Settings Settings `json:"settings"`
	// Note says what else the machine ran meanwhile (its load average).
	Note string `json:"note,omitempty"`
}

// Settings are the options a run was made with.
type Settings struct {
	Runs            int     `json:"runs"`
	StartupRuns     int     `json:"startupRuns,omitempty"`
	OperationTimeMs float64 `json:"operationTimeMs,omitempty"`
	Scale           float64 `json:"scale,omitempty"`
	Pods            []int   `json:"pods,omitempty"`
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

// Merge puts the figures of the steps that run measured in place of r's.
func (r *Report) Merge(run *Report) {
	if r.Runs == nil {
		r.Runs = map[string]Measured{}
	}
	for step, how := range run.Runs {
		r.Runs[step] = how
		switch step {
		case StepStartup:
			r.Startup = run.Startup
		case StepPoolApply:
			r.PoolApply = run.PoolApply
		case StepKueue:
			r.Kueue = run.Kueue
		case StepPlans:
			r.Commands = run.Commands
		case StepActive:
			r.Active = run.Active
		case StepGoBench:
			r.GoBench = run.GoBench
		case StepScale:
			r.Scale = run.Scale
		}
	}
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
}

// PoolApply is the apply of node pools with an emulated operation time:
// the ideal is the longest of the pools' GKE operations as the sandbox ran
// them, the overhead the rest of the wall time.
type PoolApply struct {
	Pools       int     `json:"pools"`
	DelayMs     float64 `json:"emulatedDelayMs"`
	OperationMs float64 `json:"longestOperationMs"`
	WallMs      float64 `json:"wallMs"`
	OverheadMs  float64 `json:"overheadMs"`
	OverheadPct float64 `json:"overheadPercent"`
	// BeforeMs is from the command's start to the first create operation;
	// AfterMs from the last operation's end to the command's end.
	BeforeMs float64 `json:"beforeFirstOperationMs"`
	AfterMs  float64 `json:"afterLastOperationMs"`
	// GoogleRequests are the apply's GKE and Compute requests, its plan
	// walk included, by "api VERB collection".
	GoogleRequests map[string]int64 `json:"googleRequests"`
}

// Measurement is one Terraform command, run one or more times: each run's
// wall time, CPU time (Terraform's and the provider processes'), the
// provider processes' own CPU time and peak resident set, and its API
// requests by "verb resource" (Kubernetes) and "api VERB collection" (GKE
// and Compute). A plan has its floor: the same plan of as many resources
// of a provider that does no work (internal/bench/floor).
type Measurement struct {
	Name               string             `json:"name"`
	Pools              int                `json:"pools"`
	Slices             int                `json:"slices"`
	WallMs             []float64          `json:"wallMs"`
	MedianMs           float64            `json:"medianMs"`
	CPUMs              []float64          `json:"cpuMs,omitempty"`
	ProviderCPUMs      []float64          `json:"providerCpuMs,omitempty"`
	ProviderPeakRSSMiB []float64          `json:"providerPeakRssMiB,omitempty"`
	Kube               []map[string]int64 `json:"kubeRequests"`
	Google             []map[string]int64 `json:"googleRequests"`
	FloorResources     int                `json:"floorResources,omitempty"`
	FloorWallMs        []float64          `json:"floorWallMs,omitempty"`
	FloorMedianMs      float64            `json:"floorMedianMs,omitempty"`
	FloorCPUMs         []float64          `json:"floorCpuMs,omitempty"`
}

// Active is the time from the simulator's status update that marked each
// Slice ACTIVE to the provider's create of it returning, and a plan of the
// same stack with the time the provider spent in each kind of gRPC call,
// both with the provider served in the bench's process.
type Active struct {
	Slices   int       `json:"slices"`
	Topology string    `json:"topology"`
	MedianMs float64   `json:"medianMs"`
	P95Ms    float64   `json:"p95Ms"`
	MaxMs    float64   `json:"maxMs"`
	Samples  []float64 `json:"samplesMs"`
	// Plan names the plan, PlanWallMs is its wall time and RPCs its gRPC
	// calls by method (and resource type).
	Plan       string             `json:"plan"`
	PlanWallMs float64            `json:"planWallMs"`
	RPCs       map[string]RPCTime `json:"rpcs"`
}

// RPCTime is the time the provider spent serving one kind of gRPC call
// (calls run concurrently, up to -parallelism, so they can sum to more
// than the wall time).
type RPCTime struct {
	Calls   int     `json:"calls"`
	TotalMs float64 `json:"totalMs"`
	MaxMs   float64 `json:"maxMs"`
}

// GoBenchmark is one `go test -bench` result.
type GoBenchmark struct {
	Name        string  `json:"name"`
	NsPerOp     float64 `json:"nsPerOp"`
	BytesPerOp  float64 `json:"bytesPerOp"`
	AllocsPerOp float64 `json:"allocsPerOp"`
}
