package reservation

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"
)

// TTL bounds how long one read of a reservation block (the
// reservation, the block and its sub-blocks: three requests) serves the
// checks of the pools that target it. An apply starts the creates of its
// pools within a second or two of each other (up to -parallelism at
// once), so a few seconds let all of them share one read, and the cache
// never holds a read longer than that.
//
// Why it is safe: a cached read is a snapshot a few seconds old, no older
// than the snapshot an uncached check already acts on by the time its
// create reaches GKE, and GKE, not the check, is the authority (a create
// on a sub-block taken meanwhile by another process fails at GKE with its
// own error). What this process changes itself is never served from the
// cache: a create marks its target sub-block (a block target: the whole
// block) changed before it is sent and again when it ends, and a delete
// marks every block changed; a read that needs a changed sub-block's use
// (or, for a block target, the use of all of them) reads again.
const TTL = 5 * time.Second

// Freshness says which part of a cached block read a caller's rule
// depends on.
type Freshness int

const (
	// NeedLayout: the sub-blocks' names and physical topology only, which
	// pool creates and deletes do not change.
	NeedLayout Freshness = iota
	// NeedSubBlock: the use of one named sub-block.
	NeedSubBlock
	// NeedAll: the use of every sub-block (the free ones of a block).
	NeedAll
)

// blockCache shares reads of reservation blocks within one engine:
// concurrent identical reads make one set of requests (the others wait
// for it), and a read serves later ones for TTL unless this
// engine changed what they depend on (see TTL).
type blockCache struct {
	ttl time.Duration
	now func() time.Time

	mu    sync.Mutex
	reads map[blockKey]*blockRead
	// found holds the reads of reservations (that they exist), one per
	// reservation for the engine's life: the blocks of a reservation (a
	// fleet's pods) share it (reservationFound).
	found map[reservationKey]*reservationRead
	// waiting, when not nil, is called when a caller begins to wait for
	// a read in flight.
	waiting func()
}

// reservationKey names a reservation.
type reservationKey struct{ project, zone, reservation string }

// reservationRead is one read of a reservation: in flight until done is
// closed.
type reservationRead struct {
	done chan struct{}
	err  error
}

// blockKey names a reservation block.
type blockKey struct{ project, zone, reservation, block string }

// blockRead is one read of a block: in flight until done is closed.
type blockRead struct {
	done    chan struct{}
	started time.Time
	block   *Block
	err     error
	// changed holds the sub-blocks this engine created or deleted a pool
	// on since the read started; all says it may have changed any.
	changed map[string]bool
	all     bool
}

// newBlockCache is a cache whose reads serve for TTL on the clock now;
// waiting, when not nil (tests), is called when a caller begins to wait
// for a read in flight.
func newBlockCache(now func() time.Time, waiting func()) *blockCache {
	return &blockCache{ttl: TTL, now: now, waiting: waiting, reads: map[blockKey]*blockRead{}, found: map[reservationKey]*reservationRead{}}
}

// reservationFound runs read (of the reservation k) once for the engine:
// callers that ask while it runs wait for it, and once it has found the
// reservation it answers all later callers without a request (shared).
// This provider never creates or deletes reservations, and a block read
// that finds no block checks the reservation again (forgetReservation).
// A read that fails is not kept: its waiters read again.
func (c *blockCache) reservationFound(ctx context.Context, k reservationKey, read func(context.Context) error) (shared bool, err error) {
	c.mu.Lock()
	r := c.found[k]
	if r == nil {
		r = &reservationRead{done: make(chan struct{})}
		c.found[k] = r
		c.mu.Unlock()
		r.err = read(ctx)
		c.mu.Lock()
		if r.err != nil && c.found[k] == r {
			delete(c.found, k)
		}
		close(r.done)
		c.mu.Unlock()
		return false, r.err
	}
	c.mu.Unlock()
	select {
	case <-r.done:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	if r.err != nil {
		return c.reservationFound(ctx, k, read)
	}
	return true, nil
}

// forgetReservation drops the read of reservation k.
func (c *blockCache) forgetReservation(k reservationKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.found, k)
}

// serves says whether r, done and without error, answers a caller that
// needs need (of sub-block subBlock). Callers hold c.mu.
func (r *blockRead) serves(need Freshness, subBlock string) bool {
	switch need {
	case NeedSubBlock:
		return !r.all && !r.changed[subBlock]
	case NeedAll:
		return !r.all && len(r.changed) == 0
	}
	return true
}

// get returns the block named by k, from a read that serves need (of
// subBlock) if one is cached or in flight, or else from read, which it
// runs once for all the callers that ask meanwhile (when that read fails,
// each of them reads on its own). The caller owns the
// block returned (a copy); own says whether it is the caller's own read
// (one that started when it asked), not a shared one.
func (c *blockCache) get(ctx context.Context, k blockKey, need Freshness, subBlock string,
	read func(context.Context) (*Block, error)) (b *Block, own bool, err error) {
	c.mu.Lock()
	c.sweep()
	r := c.reads[k]
	if r != nil && isDone(r) && (r.err != nil || !r.serves(need, subBlock)) {
		r = nil
	}
	if r == nil {
		r = &blockRead{done: make(chan struct{}), started: c.now(), changed: map[string]bool{}}
		c.reads[k] = r
		c.mu.Unlock()
		r.block, r.err = read(ctx)
		c.mu.Lock()
		close(r.done)
		if r.err != nil && c.reads[k] == r {
			delete(c.reads, k) // errors answer only the callers that waited
		}
		ok := r.err == nil && r.serves(need, subBlock)
		c.mu.Unlock()
		if r.err != nil {
			return nil, true, r.err
		}
		if !ok {
			// Changed by this engine while it was read.
			b, err := read(ctx)
			return b, true, err
		}
		return r.block.clone(), true, nil
	}
	waiting := c.waiting
	c.mu.Unlock()
	if waiting != nil {
		waiting()
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	c.mu.Lock()
	ok := r.err == nil && r.serves(need, subBlock)
	c.mu.Unlock()
	switch {
	case r.err != nil && ctx.Err() == nil && (errors.Is(r.err, context.Canceled) || errors.Is(r.err, context.DeadlineExceeded)):
		// The read ended with its caller's context, not this one's.
		return c.get(ctx, k, need, subBlock, read)
	case r.err != nil:
		// One failed shared read is not the failure of every caller that
		// waited for it: each reads on its own, within its own budget
		// (its context, and the clients' retries).
		b, err := read(ctx)
		return b, true, err
	case !ok:
		// Changed by this engine while it was read: read again.
		return c.get(ctx, k, need, subBlock, read)
	}
	return r.block.clone(), false, nil
}

// peek returns the block k from a read cached or in flight (waiting for
// it), or nil when there is none or it failed: for what pool creates and
// deletes do not change (the layout, maintenance), so that a caller that
// can read less itself does not start a read of all three.
func (c *blockCache) peek(ctx context.Context, k blockKey) *Block {
	c.mu.Lock()
	c.sweep()
	r := c.reads[k]
	c.mu.Unlock()
	if r == nil {
		return nil
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		return nil
	}
	if r.err != nil {
		return nil
	}
	return r.block.clone()
}

// forget drops the read of block k (after this engine changed more than
// the use of its sub-blocks, such as their maintenance).
func (c *blockCache) forget(k blockKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.reads, k)
}

// isDone says whether r's read has ended.
func isDone(r *blockRead) bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// sweep forgets the reads older than the TTL that have ended. Callers
// hold c.mu.
func (c *blockCache) sweep() {
	now := c.now()
	for k, r := range c.reads {
		if isDone(r) && now.Sub(r.started) >= c.ttl {
			delete(c.reads, k)
		}
	}
}

// changedSubBlock records that this engine changes the use of a
// sub-block of the block k (subBlock "": some sub-block of it).
func (c *blockCache) changedSubBlock(k blockKey, subBlock string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.reads[k]; r != nil {
		if subBlock == "" {
			r.all = true
		} else {
			r.changed[subBlock] = true
		}
	}
}

// changedAll records that this engine changes the use of sub-blocks it
// cannot name (a delete of a pool whose target it did not read).
func (c *blockCache) changedAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.reads {
		r.all = true
	}
}

// clone is a copy of b that its receiver may change.
func (b *Block) clone() *Block {
	out := *b
	out.SubBlocks = slices.Clone(b.SubBlocks)
	return &out
}

// blockKey is the cache key of a target's block.
func (t Target) blockKey() blockKey {
	return blockKey{project: t.Project, zone: t.Zone, reservation: t.Reservation, block: t.Block}
}
