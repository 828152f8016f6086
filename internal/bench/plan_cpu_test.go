package bench

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestWritePlanCPU(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&out, format, args...) }
	writePlanCPU(w, []Measurement{{Name: "refresh", WallMs: []float64{900}, CPUMs: []float64{1200}}}, 2)
	if out.Len() != 0 {
		t.Fatalf("commands without a floor wrote %q", out.String())
	}
	writePlanCPU(w, []Measurement{
		{Name: "plan 16 pools", WallMs: []float64{500}, CPUMs: []float64{600}, FloorWallMs: []float64{200}, FloorCPUMs: []float64{300}},
		{
			Name:   "plan 144 pools + 36 slices",
			WallMs: []float64{2100, 2000, 2300}, CPUMs: []float64{3000, 2900, 3100},
			SchemaFloorWallMs: []float64{1500}, SchemaFloorCPUMs: []float64{2400},
			FloorWallMs: []float64{1000}, FloorCPUMs: []float64{1600},
		},
	}, 2)
	for _, want := range []string{
		"| plan 16 pools | 0.60 s | 1.20 |  |  | 0.30 s | 1.50 |",
		"| plan 144 pools + 36 slices | 3.00 s | 1.43 | 2.40 s | 1.60 | 1.60 s | 1.60 |",
		"For plan 144 pools + 36 slices, the stack's CPU time is 1.88× its floor's, and its schema floor's alone 1.50×.",
		"On this machine's 2 cores no plan takes less wall time than its CPU time over 2.",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan CPU lacks %q:\n%s", want, out.String())
		}
	}
}
