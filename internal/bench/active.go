package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"time"
)

// activeLatency removes the slices and has an in-process provider create
// m.stack.slices slices of 4x8x8, timing when it sees each ACTIVE and
// profiling a plan (r.Active, r.Profile).
func (m *meter) activeLatency(ctx context.Context, r *Report, cpuProfile string) error {
	if _, err := m.measure(ctx, "remove slices", m.stack.pools, 0, "", 1,
		append([]string{"apply", "-input=false", "-no-color", "-auto-approve"}, vars(m.stack.pools, 0, "4x8x8", "active")...)...); err != nil {
		return err
	}
	var err error
	r.Active, r.Profile, err = m.inProcessRuns(ctx, m.stack.slices, "4x8x8", cpuProfile)
	return err
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
	v := vars(m.stack.pools, n, topology, "active")
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
	profile.Name = "plan " + stackLabel(m.stack.pools, n, topology)
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
