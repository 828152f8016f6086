package bench

import (
	"fmt"
	"math"
)

// podStack is the size of the stack whose plans, refreshes and time to
// ACTIVE a run measures: a full pod (podSubBlocks pools, 36 slices of
// 4x8x8, or one slice of every partition) times Options.Scale, so that a
// short run (make bench-short, in CI) can plan a quarter pod.
type podStack struct {
	// pools is the number of node pools, one per sub-block.
	pools int
	// slices is the number of 4x8x8 slices (4 partitions each).
	slices int
	// oneSlice is the topology of the one slice over every partition.
	oneSlice string
}

// stackOf is the pod stack at scale (a fraction of a pod, in (0, 1]):
// its pools rounded to a multiple of 4 (a 4x8x8 slice's partitions), at
// least 4.
func stackOf(scale float64) podStack {
	pools := int(math.Round(scale*podSubBlocks/4)) * 4
	pools = max(4, min(pools, podSubBlocks))
	return podStack{pools: pools, slices: pools / 4, oneSlice: superSliceOf(pools)}
}

// superSliceOf is the most cube-like tpu7x super-slice of n 4x4x4
// partitions: a ≤ b ≤ c partitions along its dimensions with a·b·c = n
// and c as small as can be (16x24x24 for 144, 12x12x16 for 36).
func superSliceOf(n int) string {
	best := [3]int{1, 1, n}
	for a := 1; a*a*a <= n; a++ {
		for b := a; a*b*b <= n; b++ {
			if n%(a*b) != 0 {
				continue
			}
			if c := n / (a * b); c >= b && (c < best[2] || c == best[2] && a > best[0]) {
				best = [3]int{a, b, c}
			}
		}
	}
	return fmt.Sprintf("%dx%dx%d", 4*best[0], 4*best[1], 4*best[2])
}
