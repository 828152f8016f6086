package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
)

// podStack is the size of the pod's stack whose plans, refreshes and time
// to ACTIVE a run measures: a full pod (podSubBlocks pools, 36 slices of
// 4x8x8, or one slice over every partition) times Options.Scale, its pools
// rounded to a multiple of 4 (a 4x8x8 slice's partitions), at least 4.
type podStack struct {
	pools, slices int
	// oneSlice is the topology of the one slice over every partition.
	oneSlice string
}

func stackOf(scale float64) podStack {
	pools := max(4, min(int(math.Round(scale*podSubBlocks/4))*4, podSubBlocks))
	return podStack{pools: pools, slices: pools / 4, oneSlice: superSliceOf(pools)}
}

// superSliceOf is the most cube-like tpu7x super-slice of n 4x4x4
// partitions: a ≤ b ≤ c partitions along its dimensions with a·b·c = n
// and c as small as can be (16x24x24 for 144, 12x12x16 for 36).
func superSliceOf(n int) string {
	best := [3]int{1, 1, n}
	for a := 1; a*a*a <= n; a++ {
		for b := a; a*b*b <= n; b++ {
			if c := n / (a * b); n%(a*b) == 0 && c >= b && (c < best[2] || c == best[2] && a > best[0]) {
				best = [3]int{a, b, c}
			}
		}
	}
	return fmt.Sprintf("%dx%dx%d", 4*best[0], 4*best[1], 4*best[2])
}

// stackLabel names a stack of pools and slices.
func (m *meter) stackLabel(pools, slices int) string {
	switch slices {
	case 0:
		return fmt.Sprintf("%d pools", pools)
	case 1:
		return fmt.Sprintf("%d pools + 1 slice %s", pools, m.stack.oneSlice)
	}
	return fmt.Sprintf("%d pools + %d slices 4x8x8", pools, slices)
}

// plansAndRefreshes applies each stack in turn (16 pools; then the pod's
// pools with one slice over all their partitions; then with a 4x8x8 slice
// per 4 pools) and measures opts.Runs plans, with their floors, and
// refreshes of each.
func (m *meter) plansAndRefreshes(ctx context.Context, opts Options) ([]Measurement, error) {
	var out []Measurement
	for i, s := range [][2]int{{smallPools, 0}, {m.stack.pools, 1}, {m.stack.pools, m.stack.slices}} {
		pools, slices := s[0], s[1]
		label := m.stackLabel(pools, slices)
		if i > 0 {
			opts.step("Apply of %s", label)
			if i == 2 { // the previous stack's slice goes first
				if _, err := m.apply(ctx, "remove slices", pools, 0); err != nil {
					return nil, err
				}
			}
			if _, err := m.apply(ctx, "apply "+label, pools, slices); err != nil {
				return nil, err
			}
		}
		opts.step("plan of %s and its floor (%d runs each, in turn), then its refresh", label, opts.Runs)
		plan, err := m.planWithFloor(ctx, "plan "+label, pools, slices, opts.Runs)
		if err != nil {
			return nil, err
		}
		refresh, err := m.refresh(ctx, "refresh "+label, pools, slices, opts.Runs)
		if err != nil {
			return nil, err
		}
		out = append(out, *plan, *refresh)
	}
	return out, nil
}

// refresh measures runs refresh-only applies of the stack.
func (m *meter) refresh(ctx context.Context, name string, pools, slices, runs int) (*Measurement, error) {
	return m.measure(ctx, name, pools, slices, runs,
		append([]string{"apply", "-refresh-only", "-input=false", "-no-color", "-auto-approve"}, m.vars(pools, slices, "pod-slice")...)...)
}

// apply applies the stack of pools and slices (named pod-slice-<nn>) once,
// with extra flags.
func (m *meter) apply(ctx context.Context, name string, pools, slices int, extra ...string) (*Measurement, error) {
	args := append([]string{"apply", "-input=false", "-no-color", "-auto-approve"}, extra...)
	return m.measure(ctx, name, pools, slices, 1, append(args, m.vars(pools, slices, "pod-slice")...)...)
}

// measure runs a command runs times and records each run's times and
// requests.
func (m *meter) measure(ctx context.Context, name string, pools, slices, runs int, args ...string) (*Measurement, error) {
	out := &Measurement{Name: name, Pools: pools, Slices: slices}
	for range runs {
		kube, google := m.sb.KubeRequestCounts(), m.sb.RequestCounts()
		took, err := m.ws.terraform(ctx, nil, args...)
		if err != nil {
			if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.ExitCode() == 2 && args[0] == "plan" {
				return nil, fmt.Errorf("%s: the plan is not empty after apply (a provider bug): %w", name, err)
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		out.WallMs, out.CPUMs = append(out.WallMs, ms(took.wall)), append(out.CPUMs, ms(took.cpu))
		out.ProviderCPUMs = append(out.ProviderCPUMs, ms(took.providers.cpu))
		out.ProviderPeakRSSMiB = append(out.ProviderPeakRSSMiB, mib(took.providers.peakRSSKiB))
		out.Kube = append(out.Kube, diff(m.sb.KubeRequestCounts(), kube))
		out.Google = append(out.Google, diff(m.sb.RequestCounts(), google))
	}
	out.MedianMs = percentile(out.WallMs, 50)
	return out, nil
}

// planWithFloor measures runs plans of the stack and of its floor, in
// turn, so that both see the same load of the machine. It first applies
// the floor with as many resources as the plan refreshes (the pools, the
// slices, and each pod's workload policy and data source), so that the
// floor's plan refreshes that many existing ones, with the same flags. A
// floor's plan that has changes fails the bench (-detailed-exitcode).
func (m *meter) planWithFloor(ctx context.Context, name string, pools, slices, runs int) (*Measurement, error) {
	n := pools + slices + 2*max(1, m.pods)
	v := fmt.Sprintf("-var=resources=%d", n)
	if _, err := m.floor.terraform(ctx, nil, "apply", "-input=false", "-no-color", "-auto-approve", v); err != nil {
		return nil, fmt.Errorf("floor of %s: %w", name, err)
	}
	plan := &Measurement{Name: name, Pools: pools, Slices: slices, FloorResources: n}
	for range runs {
		one, err := m.measure(ctx, name, pools, slices, 1, planFlags(m.vars(pools, slices, "pod-slice")...)...)
		if err != nil {
			return nil, err
		}
		plan.WallMs, plan.CPUMs = append(plan.WallMs, one.WallMs...), append(plan.CPUMs, one.CPUMs...)
		plan.ProviderCPUMs = append(plan.ProviderCPUMs, one.ProviderCPUMs...)
		plan.ProviderPeakRSSMiB = append(plan.ProviderPeakRSSMiB, one.ProviderPeakRSSMiB...)
		plan.Kube, plan.Google = append(plan.Kube, one.Kube...), append(plan.Google, one.Google...)
		took, err := m.floor.terraform(ctx, nil, planFlags(v)...)
		if err != nil {
			return nil, fmt.Errorf("floor of %s (a plan of %d no-op resources): %w", name, n, err)
		}
		plan.FloorWallMs, plan.FloorCPUMs = append(plan.FloorWallMs, ms(took.wall)), append(plan.FloorCPUMs, ms(took.cpu))
	}
	plan.MedianMs, plan.FloorMedianMs = percentile(plan.WallMs, 50), percentile(plan.FloorWallMs, 50)
	return plan, nil
}

// diff is after's counts less before's, the zeros left out.
func diff(after, before map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}
