package bench

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/google/pprof/profile"
)

// CPUSplit is where the CPU of the in-process plan went, from a CPU
// profile of this process (which serves the provider and runs the
// sandbox; Terraform is another process). A sample in a plugin RPC counts
// as the provider's own work when one of this provider's functions is on
// its stack (its handlers and engine, and the framework calls they make
// to read and set values); otherwise as terraform-plugin-framework's and
// the plugin protocol's work around them (decoding and walking every
// value, plan modifiers, defaults, semantic equality).
type CPUSplit struct {
	// SampledMs is every sample of the provider's side: RPCs, the
	// Kubernetes client and informers, and the garbage collector.
	SampledMs float64 `json:"sampledMs"`
	// ProviderMs is in RPCs, under this provider's handlers and engine.
	ProviderMs float64 `json:"providerMs"`
	// FrameworkMs is in RPCs, outside them: the framework and protocol.
	FrameworkMs float64 `json:"frameworkMs"`
	// KubeClientMs is client-go outside RPCs: informers and watches, the
	// provider's and the sandbox controllers' alike (their goroutines
	// start in client-go).
	KubeClientMs float64 `json:"kubeClientMs"`
	// GCMs is the garbage collector's background work.
	GCMs float64 `json:"gcMs"`
	// OtherMs is the rest of the provider's side (gRPC transport, the
	// runtime's scheduler).
	OtherMs float64 `json:"otherMs"`
	// SandboxMs is the sandbox's, left out of SampledMs.
	SandboxMs float64 `json:"sandboxMs"`
}

// FrameworkShare is the framework's part of the CPU spent in RPCs.
func (c CPUSplit) FrameworkShare() float64 {
	if c.ProviderMs+c.FrameworkMs <= 0 {
		return 0
	}
	return c.FrameworkMs / (c.ProviderMs + c.FrameworkMs)
}

const ownPackages = "github.com/dynslice/terraform-provider-gke/internal/"

// splitCPU reads a CPU profile (as runtime/pprof writes it) and sorts its
// samples into a CPUSplit.
func splitCPU(data []byte) (CPUSplit, error) {
	var out CPUSplit
	p, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		return out, fmt.Errorf("reading the CPU profile: %w", err)
	}
	cpu := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" && st.Unit == "nanoseconds" {
			cpu = i
		}
	}
	if cpu < 0 {
		return out, fmt.Errorf("the profile has no cpu/nanoseconds samples")
	}
	for _, s := range p.Sample {
		ms := float64(s.Value[cpu]) / 1e6
		switch stackKind(s) {
		case "sandbox":
			out.SandboxMs += ms
			continue
		case "provider":
			out.ProviderMs += ms
		case "framework":
			out.FrameworkMs += ms
		case "kube":
			out.KubeClientMs += ms
		case "gc":
			out.GCMs += ms
		default:
			out.OtherMs += ms
		}
		out.SampledMs += ms
	}
	return out, nil
}

// stackKind says whose work one sample is (see CPUSplit).
func stackKind(s *profile.Sample) string {
	var rpc, own, kube, gc bool
	for _, loc := range s.Location {
		for _, line := range loc.Line {
			if line.Function == nil {
				continue
			}
			name := line.Function.Name
			switch {
			case strings.HasPrefix(name, ownPackages+"sandbox"):
				return "sandbox"
			case strings.Contains(name, "terraform-plugin-go/tfprotov6/tf6server."):
				rpc = true
			case strings.HasPrefix(name, ownPackages) && !strings.HasPrefix(name, ownPackages+"bench"):
				own = true
			case strings.HasPrefix(name, "k8s.io/client-go/"):
				kube = true
			case strings.HasPrefix(name, "runtime.gcBgMarkWorker"):
				gc = true
			}
		}
	}
	switch {
	case gc:
		return "gc"
	case rpc && own:
		return "provider"
	case rpc:
		return "framework"
	case kube:
		return "kube"
	}
	return "other"
}
