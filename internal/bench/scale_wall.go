package bench

import (
	"fmt"
	"strings"
)

// wallAgainstCPU says, for the plans and refreshes of each fleet size,
// how much of the wall time Terraform and the provider spent on the CPU,
// and how much they waited (for the sandbox's answers, which run on the
// same cores, and for the disk), so that a reader sees which part of a
// cost that grows faster than the resources is the provider's.
func wallAgainstCPU(points []ScalePoint) string {
	var b strings.Builder
	b.WriteString("Wall time against CPU time (medians): what Terraform and the provider spent on the CPU, and the rest of the wall time, " +
		"which they spent waiting (for the sandbox's kube-apiserver, etcd and emulated APIs, which share the two cores and whose own " +
		"background work grows with the nodes, and for the disk):\n\n")
	b.WriteString("| Pods | Pools | Plan wall | Plan CPU (Terraform and provider) | Plan provider CPU | Plan wait | Refresh wall | Refresh CPU (Terraform and provider) | Refresh provider CPU | Refresh wait |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range points {
		pw, pc, pp := p.Plan.MedianMs/1000, percentile(p.Plan.CPUMs, 50)/1000, percentile(p.Plan.ProviderCPUMs, 50)/1000
		rw, rc, rp := p.Refresh.MedianMs/1000, percentile(p.Refresh.CPUMs, 50)/1000, percentile(p.Refresh.ProviderCPUMs, 50)/1000
		fmt.Fprintf(&b, "| %d | %d | %.2f s | %.2f s | %.2f s | %s | %.2f s | %.2f s | %.2f s | %s |\n",
			p.Pods, p.Pools, pw, pc, pp, waited(pw, pc), rw, rc, rp, waited(rw, rc))
	}
	return b.String()
}

// waited is the wall time not spent on the CPU, or "none" when the CPU
// time (of several processes at once) is the larger.
func waited(wall, cpu float64) string {
	if wall <= cpu {
		return "none"
	}
	return fmt.Sprintf("%.2f s", wall-cpu)
}
