package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// Scaling is the scale step: the stack of one full pod per reservation
// block (144 pools and 36 slices of 4x8x8 each; at Options.Scale below 1,
// that fraction of each pod) at each fleet size of Options.Pods, grown in
// turn, in a sandbox of its own whose inventory holds the largest
// (sandbox.PodsInventory). Its nodes' Leases last as many times longer
// as it has pods (NodeLeaseSeconds), and kwok's and
// kube-controller-manager's node heartbeats are as many times rarer
// (HeartbeatScale): the heartbeat writes of the largest fleet are those of
// one pod in the other steps' sandbox. NodeReadySeconds bounds the
// emulated GKE's wait for a new pool's nodes, as many times longer.
type Scaling struct {
	NodeLeaseSeconds int          `json:"nodeLeaseSeconds"`
	HeartbeatScale   int          `json:"heartbeatScale"`
	NodeReadySeconds int          `json:"nodeReadySeconds"`
	Points           []ScalePoint `json:"points"`
	// PerPool is the cost per added pool: least-squares slopes over the
	// points.
	PerPool PerPool `json:"perPool"`
}

// ScalePoint is the stack at one fleet size.
type ScalePoint struct {
	Pods   int `json:"pods"`
	Pools  int `json:"pools"`
	Slices int `json:"slices"`
	Nodes  int `json:"nodes"`
	// Apply is the apply that grew the stack to this size from the
	// previous point's (from nothing for the first): AddedPools pools and
	// AddedSlices slices created.
	Apply       Measurement `json:"apply"`
	AddedPools  int         `json:"addedPools"`
	AddedSlices int         `json:"addedSlices"`
	// Plan is the plan with its floor of the same size;
	// Refresh the refresh-only apply.
	Plan    Measurement `json:"plan"`
	Refresh Measurement `json:"refresh"`
}

// PerPool is what each added pool (with its quarter of a 4x8x8 slice)
// costs, the slope of a least-squares line over the scale step's points
// (medians), and the apply's wall time per pool it created.
type PerPool struct {
	PlanMs             float64 `json:"planMs"`
	FloorMs            float64 `json:"floorMs"`
	RefreshMs          float64 `json:"refreshMs"`
	PlanCPUMs          float64 `json:"planCpuMs"`
	ProviderCPUMs      float64 `json:"providerCpuMs"`
	ProviderRSSMiB     float64 `json:"providerRssMiB"`
	ProviderRSSBaseMiB float64 `json:"providerRssInterceptMiB"`
	ApplyMs            float64 `json:"applyMsPerCreatedPool"`
}

// runScale runs the scale step: a sandbox with the largest fleet's
// inventory, and the stack grown to each fleet size in turn.
func runScale(ctx context.Context, opts Options) (*Scaling, error) {
	sizes := slices.Clone(opts.Pods)
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	most := sizes[len(sizes)-1]
	sc := &Scaling{NodeLeaseSeconds: most * sandbox.DefaultNodeLeaseSeconds, HeartbeatScale: most, NodeReadySeconds: most * int(sandbox.DefaultNodeReadyTimeout/time.Second)}
	dir := filepath.Join(opts.Dir, "scale")
	opts.step("Scale: starting a sandbox of its own with %d pods (%d sub-blocks), node Leases of %ds", most, most*podSubBlocks, sc.NodeLeaseSeconds)
	sb, err := sandbox.Start(ctx, sandbox.Options{Dir: filepath.Join(dir, "sandbox"), Inventory: sandbox.PodsInventory(most), NodeLeaseSeconds: sc.NodeLeaseSeconds,
		NodeReadyTimeout: time.Duration(sc.NodeReadySeconds) * time.Second})
	if err != nil {
		return nil, err
	}
	defer sb.Stop()
	opts.step("Scale: building the provider and the floor's provider, terraform init")
	m, err := newMeter(ctx, opts, dir, sb)
	if err != nil {
		return nil, err
	}
	prev := ScalePoint{}
	for _, pods := range sizes {
		p, err := m.scalePoint(ctx, opts, pods, prev)
		if err != nil {
			return nil, err
		}
		sc.Points = append(sc.Points, p)
		prev = p
	}
	sc.PerPool = perPool(sc.Points)
	return sc, nil
}

// scalePoint grows the stack from prev to pods pods and measures its
// plans (with floors) and refreshes.
func (m *meter) scalePoint(ctx context.Context, opts Options, pods int, prev ScalePoint) (ScalePoint, error) {
	m.pods = pods
	p := ScalePoint{Pods: pods, Pools: pods * m.stack.pools, Slices: pods * m.stack.slices}
	p.Nodes = p.Pools * hostsPerSubBlock
	p.AddedPools, p.AddedSlices = p.Pools-prev.Pools, p.Slices-prev.Slices
	label := fmt.Sprintf("%d pod%s: %s", pods, map[bool]string{true: "s"}[pods > 1], m.stackLabel(p.Pools, p.Slices))
	opts.step("Scale: apply of %s (%d pools and %d slices to create)", label, p.AddedPools, p.AddedSlices)
	apply, err := m.apply(ctx, "apply "+label, p.Pools, p.Slices)
	if err != nil {
		return p, err
	}
	opts.step("Scale: plan of %s and its floor (%d runs each, in turn), then its refresh", label, opts.Runs)
	plan, err := m.planWithFloor(ctx, "plan "+label, p.Pools, p.Slices, opts.Runs)
	if err != nil {
		return p, err
	}
	refresh, err := m.refresh(ctx, "refresh "+label, p.Pools, p.Slices, opts.Runs)
	if err != nil {
		return p, err
	}
	p.Apply, p.Plan, p.Refresh = *apply, *plan, *refresh
	return p, nil
}

// perPool fits the cost per pool over the points.
func perPool(points []ScalePoint) PerPool {
	var out PerPool
	line := func(y func(ScalePoint) float64) (slope, intercept float64) {
		xs, ys := make([]float64, len(points)), make([]float64, len(points))
		for i, p := range points {
			xs[i], ys[i] = float64(p.Pools), y(p)
		}
		return leastSquares(xs, ys)
	}
	out.PlanMs, _ = line(func(p ScalePoint) float64 { return p.Plan.MedianMs })
	out.FloorMs, _ = line(func(p ScalePoint) float64 { return p.Plan.FloorMedianMs })
	out.RefreshMs, _ = line(func(p ScalePoint) float64 { return p.Refresh.MedianMs })
	out.PlanCPUMs, _ = line(func(p ScalePoint) float64 { return percentile(p.Plan.CPUMs, 50) })
	out.ProviderCPUMs, _ = line(func(p ScalePoint) float64 { return percentile(p.Plan.ProviderCPUMs, 50) })
	out.ProviderRSSMiB, out.ProviderRSSBaseMiB = line(func(p ScalePoint) float64 { return percentile(p.Plan.ProviderPeakRSSMiB, 50) })
	var applyMs float64
	var created int
	for _, p := range points {
		applyMs += p.Apply.MedianMs
		created += p.AddedPools
	}
	if created > 0 {
		out.ApplyMs = applyMs / float64(created)
	}
	return out
}

// leastSquares is the slope and intercept of the least-squares line
// through (xs, ys); with fewer than two distinct xs, a slope of y/x
// through the origin.
func leastSquares(xs, ys []float64) (slope, intercept float64) {
	n := float64(len(xs))
	if n == 0 {
		return 0, 0
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	den := n*sxx - sx*sx
	if den == 0 {
		if sx == 0 {
			return 0, 0
		}
		return sy / sx, 0
	}
	slope = (n*sxy - sx*sy) / den
	return slope, (sy - slope*sx) / n
}
