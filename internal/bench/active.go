package bench

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dynslice/terraform-provider-gke/internal/pluginlog"
	"github.com/dynslice/terraform-provider-gke/internal/provider"
	"github.com/dynslice/terraform-provider-gke/internal/tfrun"
)

// active removes the stack's slices and has a provider served in this
// process create them again, comparing when each create returned with
// when the simulator marked the Slice ACTIVE (the same clock); then it
// plans the stack and times the provider's gRPC calls. (This comes last:
// a provider served in-process keeps its informers until the bench ends.)
func (m *meter) active(ctx context.Context, cpuProfile string) (*Active, error) {
	n := m.stack.slices
	if _, err := m.apply(ctx, "remove slices", m.stack.pools, 0); err != nil {
		return nil, err
	}
	env, srv, stop, err := inProcess(ctx)
	if err != nil {
		return nil, err
	}
	defer stop()
	v := m.vars(m.stack.pools, n, "active")
	if _, err := m.ws.terraform(ctx, []string{env}, append([]string{"apply", "-input=false", "-no-color", "-auto-approve"}, v...)...); err != nil {
		return nil, err
	}
	res := &Active{Slices: n, Topology: "4x8x8", Plan: "plan " + m.stackLabel(m.stack.pools, n)}
	returned, _ := srv.take()
	for i := range n {
		name := fmt.Sprintf("active-%02d", i)
		active, ok := m.sb.SliceMarkedActive(name)
		done, created := returned[name]
		if !ok || !created {
			return nil, fmt.Errorf("slice %s: marked ACTIVE %v, create returned %v", name, ok, created)
		}
		res.Samples = append(res.Samples, ms(done.Sub(active)))
	}
	res.MedianMs, res.P95Ms, res.MaxMs = percentile(res.Samples, 50), percentile(res.Samples, 95), slices.Max(res.Samples)

	if cpuProfile != "" {
		f, err := os.Create(cpuProfile)
		if err != nil {
			return nil, err
		}
		defer func() { _ = f.Close() }()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
	}
	took, err := m.ws.terraform(ctx, []string{env}, planFlags(v...)...)
	if cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		return nil, fmt.Errorf("%s (in-process): %w", res.Plan, err)
	}
	_, res.RPCs = srv.take()
	res.PlanWallMs = ms(took.wall)
	return res, nil
}

// inProcess serves the provider from this process (tfrun.Serve) with a
// clock on its gRPC calls, and returns the TF_REATTACH_PROVIDERS entry of
// Terraform's environment, the timed server, and what stops serving.
func inProcess(ctx context.Context) (string, *timedServer, func(), error) {
	// Log as the provider's binary does under the bench's Terraform, whose
	// environment has no TF_LOG (tfrun.CleanEnv).
	get := func(name string) string {
		for _, kv := range tfrun.CleanEnv() {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				return v
			}
		}
		return ""
	}
	if _, err := pluginlog.Quiet("gke", pluginlog.Env{Get: get, Set: os.Setenv}); err != nil {
		return "", nil, nil, err
	}
	server, err := providerserver.NewProtocol6WithError(provider.New("bench")())()
	if err != nil {
		return "", nil, nil, err
	}
	srv := &timedServer{ProviderServer: server, returned: map[string]time.Time{}, rpcs: map[string]RPCTime{}}
	env, stop, err := tfrun.Serve(ctx, tfrun.Address, func() tfprotov6.ProviderServer { return srv })
	return env, srv, stop, err
}

// timedServer is the provider's gRPC server with a clock on its calls; it
// also records when each create of a gke_tpu_slice returned, by name.
type timedServer struct {
	tfprotov6.ProviderServer

	mu        sync.Mutex
	sliceType tftypes.Type
	returned  map[string]time.Time
	rpcs      map[string]RPCTime
}

// clock records one call of rpc that began at started and ends now.
func (s *timedServer) clock(rpc string, started time.Time) {
	took := ms(time.Since(started))
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.rpcs[rpc]
	t.Calls, t.TotalMs, t.MaxMs = t.Calls+1, t.TotalMs+took, max(t.MaxMs, took)
	s.rpcs[rpc] = t
}

// take returns the slices' creates and the calls recorded so far, and
// starts afresh.
func (s *timedServer) take() (map[string]time.Time, map[string]RPCTime) {
	s.mu.Lock()
	defer s.mu.Unlock()
	returned, rpcs := s.returned, s.rpcs
	s.returned, s.rpcs = map[string]time.Time{}, map[string]RPCTime{}
	return returned, rpcs
}

func (s *timedServer) ConfigureProvider(ctx context.Context, req *tfprotov6.ConfigureProviderRequest) (*tfprotov6.ConfigureProviderResponse, error) {
	defer s.clock("ConfigureProvider", time.Now())
	return s.ProviderServer.ConfigureProvider(ctx, req)
}

func (s *timedServer) ValidateResourceConfig(ctx context.Context, req *tfprotov6.ValidateResourceConfigRequest) (*tfprotov6.ValidateResourceConfigResponse, error) {
	defer s.clock("ValidateResourceConfig", time.Now())
	return s.ProviderServer.ValidateResourceConfig(ctx, req)
}

func (s *timedServer) UpgradeResourceState(ctx context.Context, req *tfprotov6.UpgradeResourceStateRequest) (*tfprotov6.UpgradeResourceStateResponse, error) {
	defer s.clock("UpgradeResourceState", time.Now())
	return s.ProviderServer.UpgradeResourceState(ctx, req)
}

func (s *timedServer) ReadResource(ctx context.Context, req *tfprotov6.ReadResourceRequest) (*tfprotov6.ReadResourceResponse, error) {
	defer s.clock("ReadResource "+req.TypeName, time.Now())
	return s.ProviderServer.ReadResource(ctx, req)
}

func (s *timedServer) PlanResourceChange(ctx context.Context, req *tfprotov6.PlanResourceChangeRequest) (*tfprotov6.PlanResourceChangeResponse, error) {
	defer s.clock("PlanResourceChange "+req.TypeName, time.Now())
	return s.ProviderServer.PlanResourceChange(ctx, req)
}

func (s *timedServer) ReadDataSource(ctx context.Context, req *tfprotov6.ReadDataSourceRequest) (*tfprotov6.ReadDataSourceResponse, error) {
	defer s.clock("ReadDataSource "+req.TypeName, time.Now())
	return s.ProviderServer.ReadDataSource(ctx, req)
}

func (s *timedServer) CallFunction(ctx context.Context, req *tfprotov6.CallFunctionRequest) (*tfprotov6.CallFunctionResponse, error) {
	defer s.clock("CallFunction", time.Now())
	return s.ProviderServer.CallFunction(ctx, req)
}

func (s *timedServer) GetProviderSchema(ctx context.Context, req *tfprotov6.GetProviderSchemaRequest) (*tfprotov6.GetProviderSchemaResponse, error) {
	resp, err := s.ProviderServer.GetProviderSchema(ctx, req)
	if err == nil && resp != nil && resp.ResourceSchemas["gke_tpu_slice"] != nil {
		s.mu.Lock()
		s.sliceType = resp.ResourceSchemas["gke_tpu_slice"].ValueType()
		s.mu.Unlock()
	}
	return resp, err
}

// ApplyResourceChange records when a create of a gke_tpu_slice returned.
func (s *timedServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	started := time.Now()
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, req)
	done := time.Now()
	s.clock("ApplyResourceChange "+req.TypeName, started)
	if req.TypeName != "gke_tpu_slice" || err != nil || resp == nil ||
		slices.ContainsFunc(resp.Diagnostics, func(d *tfprotov6.Diagnostic) bool { return d.Severity == tfprotov6.DiagnosticSeverityError }) {
		return resp, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sliceType == nil {
		return resp, err
	}
	prior, errPrior := req.PriorState.Unmarshal(s.sliceType)
	planned, errPlanned := req.PlannedState.Unmarshal(s.sliceType)
	if errPrior != nil || errPlanned != nil || !prior.IsNull() || planned.IsNull() {
		return resp, err // not a create
	}
	var attrs map[string]tftypes.Value
	var name string
	if planned.As(&attrs) == nil && attrs["name"].As(&name) == nil && name != "" {
		s.returned[name] = done
	}
	return resp, err
}
