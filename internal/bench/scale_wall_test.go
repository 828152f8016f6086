package bench

import (
	"strings"
	"testing"
)

// The table says how much of each wall time was not Terraform's and the
// provider's CPU, and "none" where their CPU (two processes at once)
// exceeds the wall.
func TestWallAgainstCPU(t *testing.T) {
	p := ScalePoint{Pods: 4, Pools: 576,
		Plan:    Measurement{MedianMs: 21000, CPUMs: []float64{17000, 18000, 19000}, ProviderCPUMs: []float64{9000, 9200, 9500}},
		Refresh: Measurement{MedianMs: 20500, CPUMs: []float64{12100}, ProviderCPUMs: []float64{5000}},
	}
	small := ScalePoint{Pods: 1, Pools: 144,
		Plan:    Measurement{MedianMs: 3000, CPUMs: []float64{3500}, ProviderCPUMs: []float64{1500}},
		Refresh: Measurement{MedianMs: 3300, CPUMs: []float64{3500}, ProviderCPUMs: []float64{1300}},
	}
	got := wallAgainstCPU([]ScalePoint{small, p})
	for _, want := range []string{
		"| 1 | 144 | 3.00 s | 3.50 s | 1.50 s | none | 3.30 s | 3.50 s | 1.30 s | none |",
		"| 4 | 576 | 21.00 s | 18.00 s | 9.20 s | 3.00 s | 20.50 s | 12.10 s | 5.00 s | 8.40 s |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing row %q in:\n%s", want, got)
		}
	}
}
