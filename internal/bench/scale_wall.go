package bench

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// wallAgainstCPU says, for the plans and refreshes of each fleet size,
// how much of the wall time Terraform and the provider spent on the CPU,
// how much the sandbox spent on it meanwhile, and how much they waited,
// so that a reader sees which part of a cost that grows faster than the
// resources is the provider's and which the machine's: the sandbox
// shares the two cores with Terraform.
func wallAgainstCPU(points []ScalePoint) string {
	var b strings.Builder
	b.WriteString("Wall time against CPU time (medians): what Terraform and the provider spent on the CPU, what the sandbox spent " +
		"meanwhile (its kube-apiserver, etcd, kwok and controllers, and the emulated APIs: processes that share the two cores " +
		"with Terraform), the rest of the wall time (waiting: for answers, for a core, for the disk), and how many of the two " +
		"cores were busy on average. The sandbox's own background rate, in cores, is its CPU during the schema floor's plan, " +
		"which sends it nothing:\n\n")
	b.WriteString("| Pods | Pools | Command | Wall | CPU (Terraform and provider) | Provider CPU | Sandbox CPU | Wait | Cores busy | Sandbox background |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range points {
		background := cores(percentile(p.Plan.SchemaFloorSandboxCPUMs, 50), p.Plan.SchemaFloorMedianMs)
		for _, c := range []struct {
			name string
			m    Measurement
		}{{"plan", p.Plan}, {"refresh", p.Refresh}} {
			wall, cpu := c.m.MedianMs/1000, percentile(c.m.CPUMs, 50)/1000
			provider := percentile(c.m.ProviderCPUMs, 50) / 1000
			sandbox, busy := "–", "–"
			if len(c.m.SandboxCPUMs) > 0 {
				s := percentile(c.m.SandboxCPUMs, 50) / 1000
				sandbox, busy = fmt.Sprintf("%.2f s", s), fmt.Sprintf("%.2f", (cpu+s)/wall)
			}
			fmt.Fprintf(&b, "| %d | %d | %s | %.2f s | %.2f s | %.2f s | %s | %s | %s | %s |\n",
				p.Pods, p.Pools, c.name, wall, cpu, provider, sandbox, waited(wall, cpu), busy, background)
		}
	}
	return b.String()
}

// cores is cpu over wall (both in ms) as a number of cores, or "–" when
// either is unknown.
func cores(cpuMs, wallMs float64) string {
	if cpuMs <= 0 || wallMs <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", cpuMs/wallMs)
}

// waited is the wall time not spent on the CPU, or "none" when the CPU
// time (of several processes at once) is the larger.
func waited(wall, cpu float64) string {
	if wall <= cpu {
		return "none"
	}
	return fmt.Sprintf("%.2f s", wall-cpu)
}

// backgroundByPart splits the sandbox's background rate (its CPU during
// the schema floor's plans, which send it nothing) by part, in cores, at
// each fleet size: which of its processes does the work that grows with
// the nodes. Parts are in the order of their rate at the largest fleet.
// It is empty when no point recorded the split.
func backgroundByPart(points []ScalePoint) string {
	var last *ScalePoint
	for i := range points {
		if len(points[i].Plan.SchemaFloorSandboxPartCPUMs) > 0 {
			last = &points[i]
		}
	}
	if last == nil {
		return ""
	}
	rate := func(p ScalePoint, part string) float64 {
		runs := p.Plan.SchemaFloorSandboxPartCPUMs[part]
		if len(runs) == 0 || p.Plan.SchemaFloorMedianMs <= 0 {
			return 0
		}
		return percentile(runs, 50) / p.Plan.SchemaFloorMedianMs
	}
	parts := slices.Collect(maps.Keys(last.Plan.SchemaFloorSandboxPartCPUMs))
	slices.SortFunc(parts, func(a, b string) int {
		if c := cmp.Compare(rate(*last, b), rate(*last, a)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	b.WriteString("The sandbox's background rate by part, in cores (medians over the schema floor's plans, which send the sandbox nothing):\n\n")
	b.WriteString("| Pods | Nodes | " + strings.Join(parts, " | ") + " |\n")
	b.WriteString("|---|---|" + strings.Repeat("---|", len(parts)) + "\n")
	for _, p := range points {
		if len(p.Plan.SchemaFloorSandboxPartCPUMs) == 0 {
			continue
		}
		fmt.Fprintf(&b, "| %d | %d |", p.Pods, p.Nodes)
		for _, part := range parts {
			fmt.Fprintf(&b, " %.2f |", rate(p, part))
		}
		b.WriteString("\n")
	}
	return b.String()
}
