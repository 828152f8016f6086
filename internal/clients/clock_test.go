package clients

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a RetryTransport's clock in a test: its time moves only
// when a wait (Sleep) or the test (Advance) moves it, and it records every
// wait begun, so that a test asserts the budget logic by the order and
// count of attempts and waits, not by the wall clock.
type fakeClock struct {
	mu    sync.Mutex
	start time.Time
	now   time.Time
	// waits are the waits begun, in order, each as long as asked.
	waits []time.Duration
	// deadline, when set, is where the test's context ends on this clock
	// (end ends it): a wait that reaches it stops there.
	deadline time.Time
	end      func()
}

// maxFakeWaits stops a RetryTransport that would retry for ever (a broken
// budget): its next wait fails, and so the request, instead of the test
// hanging.
const maxFakeWaits = 10000

var errTooManyWaits = errors.New("fake clock: more waits than any budget in these tests allows")

func newFakeClock() *fakeClock {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &fakeClock{start: t0, now: t0}
}

// Now is the clock's time.
func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock by d, as time spent in an attempt.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Sleep records a wait of d and moves the clock by it, as the real wait
// does: it returns ctx's error at once when ctx has ended, and when the
// clock's deadline comes within d, the wait ends there, with ctx ended
// by it.
func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	if len(c.waits) >= maxFakeWaits {
		c.mu.Unlock()
		return errTooManyWaits
	}
	c.waits = append(c.waits, d)
	var end func()
	if err := ctx.Err(); err == nil {
		if !c.deadline.IsZero() && !c.now.Add(d).Before(c.deadline) {
			c.now, end = c.deadline, c.end
		} else {
			c.now = c.now.Add(d)
		}
	}
	c.mu.Unlock()
	if end != nil {
		end()
	}
	return ctx.Err()
}

// Waits are the waits begun so far.
func (c *fakeClock) Waits() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

// Elapsed is the time on the clock since it started.
func (c *fakeClock) Elapsed() time.Duration { return c.Now().Sub(c.start) }

// drive makes rt's time the clock's, and returns rt.
func (c *fakeClock) drive(rt *RetryTransport) *RetryTransport {
	rt.Now, rt.Sleep = c.Now, c.Sleep
	return rt
}

// withDeadline is t's context with a deadline at d on the clock (from
// its start): a wait that reaches it ends it, with
// context.DeadlineExceeded, as a resource's timeout ends a request.
func (c *fakeClock) withDeadline(t *testing.T, d time.Duration) context.Context {
	ctx := &fakeDeadlineContext{Context: t.Context(), done: make(chan struct{})}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline, c.end = c.start.Add(d), ctx.pass
	return ctx
}

// fakeDeadlineContext is a context whose deadline passes when its fake
// clock reaches it. It reports no deadline of the real clock, which the
// dialer would take as its own.
type fakeDeadlineContext struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func (c *fakeDeadlineContext) pass() { c.once.Do(func() { close(c.done) }) }

func (c *fakeDeadlineContext) Done() <-chan struct{} { return c.done }

func (c *fakeDeadlineContext) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return c.Context.Err()
	}
}

// fastRetry is the provider's RetryTransport with millisecond backoffs
// (1 to 4 ms), on clock.
func fastRetry(clock *fakeClock) *RetryTransport {
	rt := NewRetryTransport(nil)
	rt.Initial, rt.Max = time.Millisecond, 4*time.Millisecond
	return clock.drive(rt)
}

// netTimeout is the error of a transport's own timeout (a dial or a TLS
// handshake that did not finish in time).
type netTimeout struct{}

func (netTimeout) Error() string   { return "net/http: TLS handshake timeout" }
func (netTimeout) Timeout() bool   { return true }
func (netTimeout) Temporary() bool { return true }

// hangingEndpoint is a Google endpoint that takes every attempt and
// answers none: each attempt takes hang on clock and ends in the
// transport's own timeout. It counts the attempts.
func hangingEndpoint(clock *fakeClock, hang time.Duration) (http.RoundTripper, *atomic.Int32) {
	var attempts atomic.Int32
	return roundTripFunc(func(*http.Request) (*http.Response, error) {
		attempts.Add(1)
		clock.Advance(hang)
		return nil, netTimeout{}
	}), &attempts
}

// sum is the total of ds.
func sum(ds []time.Duration) time.Duration {
	var total time.Duration
	for _, d := range ds {
		total += d
	}
	return total
}
