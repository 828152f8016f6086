package reservation

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
)

// One failed shared read is not four failures: the callers that waited
// for a read that failed each read on their own, and succeed when their
// own read does. Before, the one error failed every pool create that
// shared the read.
func TestReservationCacheWaitersRetryAFailedSharedRead(t *testing.T) {
	t.Parallel()
	var waiters sync.WaitGroup
	c, _ := testCacheWaiting(waiters.Done)
	gate, started := make(chan struct{}), make(chan struct{}, 1)
	var n atomic.Int32
	read := func(context.Context) (*Block, error) {
		if n.Add(1) == 1 {
			started <- struct{}{}
			<-gate
			return nil, errors.New("listing sub-blocks: 503 (retries exhausted)")
		}
		return &Block{Name: enginetest.Block, SubBlocks: []SubBlock{{Name: "sb-a"}, {Name: "sb-b"}}}, nil
	}
	const callers = 4
	errs := make([]error, callers)
	var wg sync.WaitGroup
	wg.Go(func() { _, _, errs[0] = c.get(t.Context(), testKey, NeedSubBlock, "sb-a", read) })
	<-started
	waiters.Add(callers - 1)
	for i := 1; i < callers; i++ {
		wg.Go(func() { _, _, errs[i] = c.get(t.Context(), testKey, NeedSubBlock, "sb-b", read) })
	}
	// The waiters wait for the read in flight.
	waiters.Wait()
	close(gate)
	wg.Wait()
	if errs[0] == nil {
		t.Error("the caller whose read failed got no error")
	}
	for i, err := range errs[1:] {
		if err != nil {
			t.Errorf("waiter %d failed with the shared read's error: %v", i+1, err)
		}
	}
	if got := n.Load(); got != callers {
		t.Errorf("%d reads, want %d (the failed one, then one of each waiter)", got, callers)
	}
}
