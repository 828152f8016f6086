package engine

import (
	"fmt"
	"sync"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

// podBlock names the block of pod i of the fleet (the bench's stack).
func podBlock(i int) string { return fmt.Sprintf("%s-%d", enginetest.Block, i) }

// fleetRequests reads the blocks of a fleet of pods (one block each, all
// in one reservation) at once, as a plan's data sources do, and returns
// the requests it made: reservations, blocks, sub-block lists.
func fleetRequests(t *testing.T, pods int) (reservations, blocks, lists int) {
	t.Helper()
	c := &enginetest.CountingBlocks{Compute: enginetest.NewCompute()}
	key := enginetest.Project + "/" + enginetest.Zone + "/" + enginetest.Reservation
	c.Reservations[key] = true
	for i := range pods {
		c.Blocks[key+"/"+podBlock(i)] = &computepb.ReservationBlock{Name: proto.String(podBlock(i)), ReservationSubBlockCount: proto.Int32(1)}
		c.SubBlocks[key+"/"+podBlock(i)] = []*computepb.ReservationSubBlock{enginetest.SubBlock("sb-a", 0, fmt.Sprintf("phys-%d", i))}
	}
	e := newEngineOver(c, enginetest.NewGKE(), nil)
	var wg sync.WaitGroup
	for i := range pods {
		wg.Go(func() {
			target := reservation.Target{Project: enginetest.Project, Zone: enginetest.Zone, Reservation: enginetest.Reservation, Block: podBlock(i)}
			if b, _, err := e.res.CachedBlock(t.Context(), target, reservation.NeedAll); err != nil || b.Name != podBlock(i) {
				t.Errorf("block %s: %+v, %v", podBlock(i), b, err)
			}
		})
	}
	wg.Wait()
	return c.Reads, c.BlockReads(), c.SubBlockLists()
}

// The reads of a fleet's blocks read their reservation once, at every
// fleet size: only the block and its sub-blocks are read per pod (the
// Compute API has no list of sub-blocks across blocks).
func TestFleetReadsItsReservationOnce(t *testing.T) {
	t.Parallel()
	for _, pods := range []int{1, 4} {
		reservations, blocks, lists := fleetRequests(t, pods)
		if reservations != 1 || blocks != pods || lists != pods {
			t.Errorf("%d pods: %d reservation reads, %d block reads, %d sub-block lists; want 1, %d, %d",
				pods, reservations, blocks, lists, pods, pods)
		}
	}
}

// A block that is not found after the reservation was found earlier
// reads the reservation again, so that a reservation deleted meanwhile is
// named as such.
func TestMissingBlockChecksTheReservationAgain(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute().WithFixtureBlock()
	e := newTestEngine(c, enginetest.NewGKE(), nil)
	if _, err := e.res.Block(t.Context(), enginetest.Project, enginetest.Zone, enginetest.Reservation, enginetest.Block); err != nil {
		t.Fatal(err)
	}
	if _, err := e.res.Block(t.Context(), enginetest.Project, enginetest.Zone, enginetest.Reservation, "no-such-block"); err == nil || c.Reads != 2 {
		t.Fatalf("missing block with the reservation there: %v after %d reservation reads, want an error after 2", err, c.Reads)
	}
	c.Mu.Lock()
	delete(c.Reservations, enginetest.Project+"/"+enginetest.Zone+"/"+enginetest.Reservation)
	delete(c.Blocks, enginetest.Project+"/"+enginetest.Zone+"/"+enginetest.Reservation+"/"+enginetest.Block)
	c.Mu.Unlock()
	if _, err := e.res.Block(t.Context(), enginetest.Project, enginetest.Zone, enginetest.Reservation, enginetest.Block); err == nil || c.Reads != 3 {
		t.Errorf("reservation deleted after it was found: %v after %d reservation reads, want an error after 3", err, c.Reads)
	}
	if _, err := e.res.Block(t.Context(), enginetest.Project, enginetest.Zone, enginetest.Reservation, enginetest.Block); err == nil || c.Reads != 4 {
		t.Errorf("reservation deleted: %v after %d reads, want an error from a read of its own (4)", err, c.Reads)
	}
}
