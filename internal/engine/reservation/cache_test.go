package reservation

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
)

// countingRead is a block read that counts its calls and, when gate is
// set, waits for it to close.
type countingRead struct {
	n       atomic.Int32
	gate    chan struct{}
	started chan struct{}
	err     error
}

func (r *countingRead) read(ctx context.Context) (*Block, error) {
	r.n.Add(1)
	if r.started != nil {
		select {
		case r.started <- struct{}{}:
		default:
		}
	}
	if r.gate != nil {
		select {
		case <-r.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return &Block{Name: enginetest.Block, SubBlocks: []SubBlock{{Name: "sb-a"}, {Name: "sb-b"}}}, nil
}

// testCache is a reservation cache on a clock the test moves.
func testCache() (*blockCache, *time.Time) { return testCacheWaiting(nil) }

// testCacheWaiting is testCache that calls waiting when a caller begins
// to wait for a read in flight.
func testCacheWaiting(waiting func()) (*blockCache, *time.Time) {
	now := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	return newBlockCache(func() time.Time { return now }, waiting), &now
}

// The cache tests read enginetest's fixture block.
var testKey = blockKey{project: enginetest.Project, zone: enginetest.Zone, reservation: enginetest.Reservation, block: enginetest.Block}

func TestReservationCacheHitAndExpiry(t *testing.T) {
	t.Parallel()
	c, now := testCache()
	r := &countingRead{}
	for _, sb := range []string{"sb-a", "sb-b", "sb-a"} {
		if _, _, err := c.get(t.Context(), testKey, NeedSubBlock, sb, r.read); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := c.get(t.Context(), testKey, NeedAll, "", r.read); err != nil {
		t.Fatal(err)
	}
	if n := r.n.Load(); n != 1 {
		t.Errorf("%d reads within the TTL, want 1", n)
	}
	*now = now.Add(TTL - time.Millisecond)
	if _, _, err := c.get(t.Context(), testKey, NeedSubBlock, "sb-a", r.read); err != nil {
		t.Fatal(err)
	}
	if n := r.n.Load(); n != 1 {
		t.Errorf("%d reads just before the TTL, want 1", n)
	}
	*now = now.Add(time.Millisecond)
	if _, _, err := c.get(t.Context(), testKey, NeedSubBlock, "sb-a", r.read); err != nil {
		t.Fatal(err)
	}
	if n := r.n.Load(); n != 2 {
		t.Errorf("%d reads after the TTL, want 2", n)
	}
	// Another block is another read.
	other := testKey
	other.block = "block-2"
	if _, _, err := c.get(t.Context(), other, NeedSubBlock, "sb-a", r.read); err != nil {
		t.Fatal(err)
	}
	if n := r.n.Load(); n != 3 {
		t.Errorf("%d reads after reading another block, want 3", n)
	}
}

// A create by the engine marks its target changed: a check of that
// sub-block (or of the whole block) reads again, a check of another
// sub-block does not, and the layout is still served.
func TestReservationCacheInvalidatedByCreate(t *testing.T) {
	t.Parallel()
	c, _ := testCache()
	r := &countingRead{}
	if _, _, err := c.get(t.Context(), testKey, NeedSubBlock, "sb-a", r.read); err != nil {
		t.Fatal(err)
	}
	c.changedSubBlock(testKey, "sb-a")
	steps := []struct {
		need     Freshness
		subBlock string
		reads    int32
	}{
		{NeedSubBlock, "sb-b", 1}, // not changed: served
		{NeedLayout, "", 1},       // names and topology: served
		{NeedSubBlock, "sb-a", 2}, // changed: read again, and that read serves
		{NeedSubBlock, "sb-a", 2},
		{NeedAll, "", 2},
	}
	for i, s := range steps {
		if _, _, err := c.get(t.Context(), testKey, s.need, s.subBlock, r.read); err != nil {
			t.Fatal(err)
		}
		if n := r.n.Load(); n != s.reads {
			t.Errorf("step %d (%s): %d reads, want %d", i, s.subBlock, n, s.reads)
		}
	}
	// A create on the block (no sub-block named) and a delete change any
	// sub-block.
	c.changedSubBlock(testKey, "")
	if _, _, err := c.get(t.Context(), testKey, NeedSubBlock, "sb-b", r.read); err != nil {
		t.Fatal(err)
	}
	c.changedAll()
	if _, _, err := c.get(t.Context(), testKey, NeedAll, "", r.read); err != nil {
		t.Fatal(err)
	}
	if n := r.n.Load(); n != 4 {
		t.Errorf("%d reads after a block create and a delete, want 4", n)
	}
}

// Concurrent checks of one block share one read.
func TestReservationCacheSingleflight(t *testing.T) {
	t.Parallel()
	c, _ := testCache()
	r := &countingRead{gate: make(chan struct{}), started: make(chan struct{}, 1)}
	const callers = 16
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	call := func(sb string) {
		defer wg.Done()
		b, _, err := c.get(t.Context(), testKey, NeedSubBlock, sb, r.read)
		if err == nil && len(b.SubBlocks) != 2 {
			err = errors.New("short block")
		}
		errs <- err
	}
	wg.Add(1)
	go call("sb-a")
	<-r.started // the first read is in flight
	for i := 1; i < callers; i++ {
		wg.Add(1)
		go call([]string{"sb-a", "sb-b"}[i%2])
	}
	close(r.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := r.n.Load(); n != 1 {
		t.Errorf("%d reads for %d concurrent checks, want 1", n, callers)
	}
}

// A create by the engine while a read is in flight: the read may predate
// it, so a caller that needs the changed sub-block reads again.
func TestReservationCacheChangedDuringRead(t *testing.T) {
	t.Parallel()
	c, _ := testCache()
	r := &countingRead{gate: make(chan struct{}), started: make(chan struct{}, 1)}
	done := make(chan error, 1)
	go func() {
		_, _, err := c.get(t.Context(), testKey, NeedSubBlock, "sb-a", r.read)
		done <- err
	}()
	<-r.started
	c.changedSubBlock(testKey, "sb-a")
	close(r.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := r.n.Load(); n != 2 {
		t.Errorf("%d reads, want 2 (the one in flight during the create, then a fresh one)", n)
	}
}

// An error answers the callers that waited for that read, and is not
// kept.
func TestReservationCacheDoesNotKeepErrors(t *testing.T) {
	t.Parallel()
	c, _ := testCache()
	r := &countingRead{err: errors.New("boom")}
	if _, _, err := c.get(t.Context(), testKey, NeedSubBlock, "sb-a", r.read); err == nil {
		t.Fatal("no error")
	}
	r.err = nil
	if _, _, err := c.get(t.Context(), testKey, NeedSubBlock, "sb-a", r.read); err != nil {
		t.Fatal(err)
	}
	if n := r.n.Load(); n != 2 {
		t.Errorf("%d reads, want 2", n)
	}
}

// The caller owns the block it gets: changing it changes no other
// caller's.
func TestReservationCacheReturnsCopies(t *testing.T) {
	t.Parallel()
	c, _ := testCache()
	r := &countingRead{}
	a, _, err := c.get(t.Context(), testKey, NeedAll, "", r.read)
	if err != nil {
		t.Fatal(err)
	}
	a.SubBlocks[0].NodePool = "mine"
	b, _, err := c.get(t.Context(), testKey, NeedAll, "", r.read)
	if err != nil {
		t.Fatal(err)
	}
	if b.SubBlocks[0].NodePool != "" {
		t.Error("a caller's change of its block showed in another caller's")
	}
}
