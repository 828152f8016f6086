package bench

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// plansAndRefreshes applies each stack in turn (16 pools; at full scale
// 144 pools with one 16x24x24 slice, then 144 pools with 36 4x8x8 slices:
// m.stack) and measures runs plans and refreshes of it (r.Commands,
// r.Setup).
func (m *meter) plansAndRefreshes(ctx context.Context, r *Report, runs int, step func(format string, args ...any)) error {
	stacks := []struct {
		pools, slices int
		topology      string
	}{
		{smallPools, 0, ""},
		{m.stack.pools, 1, m.stack.oneSlice},
		{m.stack.pools, m.stack.slices, "4x8x8"},
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
		step("plan of %s, its floor (%d no-op resources) and its schema floor (%d runs each, in turn)", label, floorResources(1, s.pools, s.slices), runs)
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
	// stack is the size of the pod stack measured (Options.Scale).
	stack podStack
	// pods is how many pods the stack spans (the scale step's); 0 or 1
	// for the other steps.
	pods int
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
		out.ProviderCPUMs = append(out.ProviderCPUMs, ms(took.providers.cpu))
		out.SandboxCPUMs = append(out.SandboxCPUMs, ms(took.sandbox))
		out.ProviderPeakRSSMiB = append(out.ProviderPeakRSSMiB, mib(took.providers.peakRSSKiB))
		out.Kube = append(out.Kube, diff(m.sb.KubeRequestCounts(), kube))
		out.Google = append(out.Google, diff(m.sb.RequestCounts(), google))
	}
	out.MedianMs = percentile(out.WallMs, 50)
	return out, nil
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
