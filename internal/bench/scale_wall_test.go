package bench

import (
	"strings"
	"testing"
)

// The table says, for each command, how much of the wall time was not
// Terraform's and the provider's CPU ("none" where their CPU, two
// processes at once, exceeds the wall), the sandbox's CPU meanwhile and
// the cores busy; a point measured before the sandbox's CPU was shows
// dashes there.
func TestWallAgainstCPU(t *testing.T) {
	p := ScalePoint{Pods: 4, Pools: 576,
		Plan: Measurement{MedianMs: 21000, CPUMs: []float64{17000, 18000, 19000}, ProviderCPUMs: []float64{9000, 9200, 9500},
			SandboxCPUMs: []float64{20000, 24000, 30000}, SchemaFloorMedianMs: 16000, SchemaFloorSandboxCPUMs: []float64{8000}},
		Refresh: Measurement{MedianMs: 20500, CPUMs: []float64{12100}, ProviderCPUMs: []float64{5000}, SandboxCPUMs: []float64{28900}},
	}
	small := ScalePoint{Pods: 1, Pools: 144,
		Plan:    Measurement{MedianMs: 3000, CPUMs: []float64{3500}, ProviderCPUMs: []float64{1500}},
		Refresh: Measurement{MedianMs: 3300, CPUMs: []float64{3500}, ProviderCPUMs: []float64{1300}},
	}
	got := wallAgainstCPU([]ScalePoint{small, p})
	for _, want := range []string{
		"| 1 | 144 | plan | 3.00 s | 3.50 s | 1.50 s | – | none | – | – |",
		"| 1 | 144 | refresh | 3.30 s | 3.50 s | 1.30 s | – | none | – | – |",
		"| 4 | 576 | plan | 21.00 s | 18.00 s | 9.20 s | 24.00 s | 3.00 s | 2.00 | 0.50 |",
		"| 4 | 576 | refresh | 20.50 s | 12.10 s | 5.00 s | 28.90 s | 8.40 s | 2.00 | 0.50 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing row %q in:\n%s", want, got)
		}
	}
}
