package nodepool

import (
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
)

// Two pools created one after the other on free sub-blocks of one block
// read the reservation once; a third on a sub-block that a pool of this
// engine took is refused on a read of its own.
func TestCreateNodePoolsShareTheReservationRead(t *testing.T) {
	t.Parallel()
	compute := enginetest.NewCompute().WithFixtureBlock()
	gke := enginetest.NewGKE()
	counted := &enginetest.CountingBlocks{Compute: compute}
	e := newPoolsOver(counted, gke, nil)
	for _, sb := range []string{"sb-a", "sb-c"} {
		s := poolSpec()
		s.Name, s.Target.SubBlock = "pool-"+sb, sb
		// Without a cluster the create ends with an error after the
		// operation: its requests are what counts here.
		_, _ = e.Create(t.Context(), s, func(string) {})
	}
	if reads := counted.BlockReads(); reads != 1 {
		t.Errorf("%d block reads for two pools on one block, want 1", reads)
	}
	// The fake does not mark sb-a used: a refusal would need the fresh
	// read; here the check reads again because this engine took sb-a.
	compute.SetBlock(enginetest.SubBlock("sb-c", 16, "phys-c"), enginetest.SubBlock("sb-b", 16, "phys-b"), enginetest.SubBlock("sb-a", 16, "phys-a"))
	s := poolSpec()
	s.Name, s.Target.SubBlock = "pool-again", "sb-a"
	if _, err := e.Create(t.Context(), s, func(string) {}); err == nil {
		t.Fatal("a create on a sub-block in use was not refused")
	}
	if reads := counted.BlockReads(); reads != 2 {
		t.Errorf("%d block reads, want 2 (the target changed by this engine is read again)", reads)
	}
}
