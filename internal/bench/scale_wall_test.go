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
	t.Parallel()
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

// The background is split by part, in cores over the schema floor's
// median wall time, parts ordered by their rate at the largest fleet; a
// point without the split has no row, and without any the table is left
// out.
func TestBackgroundByPart(t *testing.T) {
	t.Parallel()
	small := ScalePoint{Pods: 1, Nodes: 2304, Plan: Measurement{SchemaFloorMedianMs: 4000,
		SchemaFloorSandboxPartCPUMs: map[string][]float64{"etcd": {400, 800, 1200}, "kwok": {100}, InProcessPart: {40}}}}
	old := ScalePoint{Pods: 2, Nodes: 4608, Plan: Measurement{SchemaFloorMedianMs: 8000}}
	big := ScalePoint{Pods: 4, Nodes: 9216, Plan: Measurement{SchemaFloorMedianMs: 10000,
		SchemaFloorSandboxPartCPUMs: map[string][]float64{"etcd": {2000}, "kwok": {6000}, InProcessPart: {1000}, "kueue": {1000}}}}
	got := backgroundByPart([]ScalePoint{small, old, big})
	for _, want := range []string{
		"| Pods | Nodes | kwok | etcd | emulated APIs (in process) | kueue |",
		"| 1 | 2304 | 0.03 | 0.20 | 0.01 | 0.00 |",
		"| 4 | 9216 | 0.60 | 0.20 | 0.10 | 0.10 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "| 2 | 4608 |") {
		t.Errorf("a point without the split has a row:\n%s", got)
	}
	if got := backgroundByPart([]ScalePoint{old}); got != "" {
		t.Errorf("no point has the split, yet: %q", got)
	}
}

// A run says how often the nodes' status was rewritten: kwok's own rate in
// a run from before it was stretched, four times less often at four pods.
func TestHeartbeatText(t *testing.T) {
	t.Parallel()
	if got := heartbeatText(0); !strings.Contains(got, "about every 10 minutes (600 to 610 s)") {
		t.Errorf("an old run: %q", got)
	}
	if got := heartbeatText(4); !strings.Contains(got, "about every 40 minutes (2400 to 2440 s") || !strings.Contains(got, "every 8 s (2 s)") {
		t.Errorf("four pods: %q", got)
	}
}

// A plan's CPU against its schema floor's is split into Terraform's own
// and the provider's difference; without the CPU figures nothing is said.
func TestSchemaFloorCPUText(t *testing.T) {
	t.Parallel()
	m := Measurement{CPUMs: []float64{5200}, ProviderCPUMs: []float64{2460}, SchemaFloorCPUMs: []float64{3390}, SchemaFloorProviderCPUMs: []float64{1680}}
	want := " (CPU of Terraform and the provider 5.20 s against 3.39 s, 1.53×: Terraform's own +1.03 s, the provider's +0.78 s)"
	if got := schemaFloorCPUText(m); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := schemaFloorCPUText(Measurement{CPUMs: []float64{5200}}); got != "" {
		t.Errorf("without the schema floor's CPU: %q", got)
	}
}
