package engine

import (
	"context"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

// countingLists is a Compute API that counts the lists of sub-blocks.
type countingLists struct {
	*enginetest.Compute
	lists int
}

func (c *countingLists) ListReservationSubBlocks(ctx context.Context, project, zone, reservation, block string) ([]*computepb.ReservationSubBlock, error) {
	c.lists++
	return c.Compute.ListReservationSubBlocks(ctx, project, zone, reservation, block)
}

// A block's maintenance comes from the engine's read of the block when it
// has one (a plan that reads the sub-blocks data source, pool checks), and
// else from one list of the sub-blocks, not a read of all three; starting
// maintenance forgets both.
func TestBlockMaintenanceSharesTheBlockRead(t *testing.T) {
	t.Parallel()
	target := reservation.Target{Project: enginetest.Project, Zone: enginetest.Zone, Reservation: enginetest.Reservation, Block: enginetest.Block}
	newEngine := func() (*Engine, *countingLists) {
		c := &countingLists{Compute: enginetest.NewCompute()}
		c.SetBlock(enginetest.SubBlockInMaintenance("sb-a", "PENDING"), enginetest.SubBlock("sb-b", 0, "phys-b"))
		e := newEngineOver(c, enginetest.NewGKE(), nil)
		return e, c
	}
	status := func(t *testing.T, e *Engine) string {
		t.Helper()
		m, err := e.res.BlockMaintenance(t.Context(), enginetest.Project, enginetest.Zone, enginetest.Reservation, enginetest.Block)
		if err != nil || len(m) != 2 || m[0].SubBlock != "sb-a" {
			t.Fatalf("BlockMaintenance = %+v, %v", m, err)
		}
		return m[0].Status
	}

	e, c := newEngine()
	if _, _, err := e.res.CachedBlock(t.Context(), target, reservation.NeedAll); err != nil {
		t.Fatal(err)
	}
	if got := status(t, e); got != reservation.MaintenancePending || c.lists != 1 || c.Reads != 1 {
		t.Errorf("after a block read: sb-a %s with %d lists and %d reservation reads, want PENDING from the one read", got, c.lists, c.Reads)
	}
	e.res.ForgetMaintenance(enginetest.Project, enginetest.Zone, enginetest.Reservation, enginetest.Block)
	if got := status(t, e); got != reservation.MaintenancePending || c.lists != 2 || c.Reads != 1 {
		t.Errorf("after forgetting: sb-a %s with %d lists and %d reservation reads, want one more list", got, c.lists, c.Reads)
	}

	e, c = newEngine()
	if got := status(t, e); got != reservation.MaintenancePending || c.lists != 1 || c.Reads != 0 {
		t.Errorf("without a block read: sb-a %s with %d lists and %d reservation reads, want one list only", got, c.lists, c.Reads)
	}
}
