package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

// countingBlocks is a Compute API that counts the reads of reservation
// blocks and the lists of their sub-blocks (fakeCompute counts the reads
// of reservations).
type countingBlocks struct {
	*fakeCompute
	mu                        sync.Mutex
	blockReads, subBlockLists int
}

func (c *countingBlocks) GetReservationBlock(ctx context.Context, project, zone, reservation, block string) (*computepb.ReservationBlock, error) {
	c.mu.Lock()
	c.blockReads++
	c.mu.Unlock()
	return c.fakeCompute.GetReservationBlock(ctx, project, zone, reservation, block)
}

func (c *countingBlocks) ListReservationSubBlocks(ctx context.Context, project, zone, reservation, block string) ([]*computepb.ReservationSubBlock, error) {
	c.mu.Lock()
	c.subBlockLists++
	c.mu.Unlock()
	return c.fakeCompute.ListReservationSubBlocks(ctx, project, zone, reservation, block)
}

// podBlock names the block of pod i of the fleet (the bench's stack).
func podBlock(i int) string { return fmt.Sprintf("%s-%d", testBlock, i) }

// fleetRequests reads the blocks of a fleet of pods (one block each, all
// in one reservation) at once, as a plan's data sources do, and returns
// the requests it made: reservations, blocks, sub-block lists.
func fleetRequests(t *testing.T, pods int) (reservations, blocks, lists int) {
	t.Helper()
	c := &countingBlocks{fakeCompute: newFakeCompute()}
	key := testProject + "/" + testZone + "/" + testReservation
	c.reservations[key] = true
	for i := range pods {
		c.blocks[key+"/"+podBlock(i)] = &computepb.ReservationBlock{Name: proto.String(podBlock(i)), ReservationSubBlockCount: proto.Int32(1)}
		c.subBlocks[key+"/"+podBlock(i)] = []*computepb.ReservationSubBlock{subBlock("sb-a", 0, fmt.Sprintf("phys-%d", i))}
	}
	e := newEngineOver(c, newFakeGKE(), nil)
	var wg sync.WaitGroup
	for i := range pods {
		wg.Go(func() {
			target := Target{Project: testProject, Zone: testZone, Reservation: testReservation, Block: podBlock(i)}
			if b, _, err := e.res.CachedBlock(t.Context(), target, reservation.NeedAll); err != nil || b.Name != podBlock(i) {
				t.Errorf("block %s: %+v, %v", podBlock(i), b, err)
			}
		})
	}
	wg.Wait()
	return c.reads, c.blockReads, c.subBlockLists
}

// The reads of a fleet's blocks read their reservation once, at every
// fleet size: only the block and its sub-blocks are read per pod (the
// Compute API has no list of sub-blocks across blocks).
func TestFleetReadsItsReservationOnce(t *testing.T) {
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
	c := newFakeCompute().withFixtureBlock()
	e := newTestEngine(c, newFakeGKE(), nil)
	if _, err := e.res.Block(t.Context(), testProject, testZone, testReservation, testBlock); err != nil {
		t.Fatal(err)
	}
	if _, err := e.res.Block(t.Context(), testProject, testZone, testReservation, "no-such-block"); err == nil || c.reads != 2 {
		t.Fatalf("missing block with the reservation there: %v after %d reservation reads, want an error after 2", err, c.reads)
	}
	c.mu.Lock()
	delete(c.reservations, testProject+"/"+testZone+"/"+testReservation)
	delete(c.blocks, testProject+"/"+testZone+"/"+testReservation+"/"+testBlock)
	c.mu.Unlock()
	if _, err := e.res.Block(t.Context(), testProject, testZone, testReservation, testBlock); err == nil || c.reads != 3 {
		t.Errorf("reservation deleted after it was found: %v after %d reservation reads, want an error after 3", err, c.reads)
	}
	if _, err := e.res.Block(t.Context(), testProject, testZone, testReservation, testBlock); err == nil || c.reads != 4 {
		t.Errorf("reservation deleted: %v after %d reads, want an error from a read of its own (4)", err, c.reads)
	}
}
