package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/dynslice/terraform-provider-gke/internal/pluginlog"
	"github.com/dynslice/terraform-provider-gke/internal/provider"
)

// providerAddress is the provider's registry address.
const providerAddress = "registry.terraform.io/dynslice/gke"

// timedServer is the provider's gRPC server with a clock on creates of
// gke_tpu_slice: it records when each create returned, by slice name.
type timedServer struct {
	tfprotov6.ProviderServer

	mu        sync.Mutex
	sliceType tftypes.Type
	returned  map[string]time.Time
	spans     []span
}

// RPCTime is the time the provider spent serving one kind of RPC.
type RPCTime struct {
	Calls   int     `json:"calls"`
	TotalMs float64 `json:"totalMs"`
	MaxMs   float64 `json:"maxMs"`
}

// clock records the span of one RPC, from started to now.
func (s *timedServer) clock(rpc string, started time.Time) {
	s.addSpan(rpc, started, time.Now())
}

// addSpan records the span of one RPC, from start to end.
func (s *timedServer) addSpan(rpc string, start, end time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spans = append(s.spans, span{rpc: rpc, start: start, end: end})
}

// rpcTimes returns the time spent by RPC since the last call, summed from
// the RPCs' spans, and the spans.
func (s *timedServer) rpcTimes() (map[string]RPCTime, []span) {
	s.mu.Lock()
	spans := s.spans
	s.spans = nil
	s.mu.Unlock()
	out := map[string]RPCTime{}
	for _, sp := range spans {
		took := ms(sp.end.Sub(sp.start))
		t := out[sp.rpc]
		t.Calls++
		t.TotalMs += took
		t.MaxMs = max(t.MaxMs, took)
		out[sp.rpc] = t
	}
	return out, spans
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
	if err == nil && resp != nil {
		if schema := resp.ResourceSchemas["gke_tpu_slice"]; schema != nil {
			s.mu.Lock()
			s.sliceType = schema.ValueType()
			s.mu.Unlock()
		}
	}
	return resp, err
}

func (s *timedServer) ApplyResourceChange(ctx context.Context, req *tfprotov6.ApplyResourceChangeRequest) (*tfprotov6.ApplyResourceChangeResponse, error) {
	started := time.Now()
	resp, err := s.ProviderServer.ApplyResourceChange(ctx, req)
	done := time.Now()
	s.clock("ApplyResourceChange "+req.TypeName, started)
	if req.TypeName != "gke_tpu_slice" || err != nil || resp == nil || hasError(resp.Diagnostics) {
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

func hasError(diags []*tfprotov6.Diagnostic) bool {
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError {
			return true
		}
	}
	return false
}

// createReturned is when the create of each slice returned, by name.
func (s *timedServer) createReturned() map[string]time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]time.Time, len(s.returned))
	for k, v := range s.returned {
		out[k] = v
	}
	return out
}

// lookupIn reads a variable of the environment env (KEY=value entries).
func lookupIn(env []string) func(string) string {
	return func(name string) string {
		for _, kv := range env {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				return v
			}
		}
		return ""
	}
}

// inProcess serves the provider from this process, as Terraform's debug
// mode does, and returns the TF_REATTACH_PROVIDERS value for Terraform,
// the timed server, and a function that stops serving.
func inProcess(ctx context.Context) (string, *timedServer, func(), error) {
	// Log as the provider's binary does under the bench's Terraform, whose
	// environment has no TF_LOG (cleanEnv): nothing that Terraform drops.
	if _, err := pluginlog.Quiet("gke", pluginlog.Env{Get: lookupIn(cleanEnv()), Set: os.Setenv}); err != nil {
		return "", nil, nil, err
	}
	factory, err := providerserver.NewProtocol6WithError(provider.New("bench")())()
	if err != nil {
		return "", nil, nil, err
	}
	srv := &timedServer{ProviderServer: factory, returned: map[string]time.Time{}}

	ctx, cancel := context.WithCancel(ctx)
	configs := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	go func() {
		_ = tf6server.Serve(providerAddress, func() tfprotov6.ProviderServer { return srv },
			tf6server.WithDebug(ctx, configs, closed),
			tf6server.WithGoPluginLogger(hclog.NewNullLogger()),
			tf6server.WithoutLogStderrOverride(),
		)
	}()
	stop := func() {
		cancel()
		select {
		case <-closed:
		case <-time.After(10 * time.Second):
		}
	}
	select {
	case cfg := <-configs:
		reattach := map[string]any{
			providerAddress: map[string]any{
				"Protocol":        string(cfg.Protocol),
				"ProtocolVersion": cfg.ProtocolVersion,
				"Pid":             cfg.Pid,
				"Test":            true,
				"Addr":            map[string]string{"Network": cfg.Addr.Network(), "String": cfg.Addr.String()},
			},
		}
		b, err := json.Marshal(reattach)
		if err != nil {
			stop()
			return "", nil, nil, err
		}
		return string(b), srv, stop, nil
	case <-time.After(30 * time.Second):
		stop()
		return "", nil, nil, fmt.Errorf("the in-process provider did not start serving in 30s")
	}
}
