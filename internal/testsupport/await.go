package testsupport

import (
	"testing"
	"time"
)

// Await and Until wait for an event (a child process that has run, a
// request that was held, a figure that has moved) with no deadline of
// their own: how long an event takes on a loaded machine is no measure of
// whether the code is right, so a test that waits for one does not bound
// the wait. An event that never comes is a failure all the same: the wait
// fails the test, saying what it waited for, a little before the test
// binary's -timeout (go test's, 10 minutes by default) would end it with a
// panic, or at once when that time is already near.

// deadliner is what *testing.T has beside testing.TB: the test binary's
// -timeout.
type deadliner interface {
	Deadline() (time.Time, bool)
}

// giveUp is the channel that ends a wait of t's: it fires a twentieth of
// the time left before the binary's -timeout (and at most a minute)
// before that timeout, or never when there is none.
func giveUp(t testing.TB) (<-chan time.Time, func()) {
	near, ok := nearTimeout(t)
	if !ok {
		return nil, func() {}
	}
	timer := time.NewTimer(time.Until(near))
	return timer.C, func() { timer.Stop() }
}

// NearTimeout is a channel that fires when t's binary's -timeout is near
// (as Await gives up), never when there is none, and the function that
// stops it: for a wait of a test's own that has no deadline of its own.
func NearTimeout(t testing.TB) (<-chan time.Time, func()) { return giveUp(t) }

// nearTimeout is the time a twentieth of the time left before the binary's
// -timeout (and at most a minute) before that timeout, if it has one.
func nearTimeout(t testing.TB) (time.Time, bool) {
	d, ok := t.(deadliner)
	if !ok {
		return time.Time{}, false
	}
	deadline, ok := d.Deadline()
	if !ok {
		return time.Time{}, false
	}
	left := time.Until(deadline)
	return deadline.Add(-min(left/20, time.Minute)), true
}

// Await receives one value from ch, which it returns: what the test waits
// for happened. It fails the test with what (what the test waits for: "the
// child to burn CPU") if it has not happened when the binary's -timeout
// is near.
func Await[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	end, stop := giveUp(t)
	defer stop()
	select {
	case v := <-ch:
		return v
	case <-end:
		t.Fatalf("waited for %s until the test binary's -timeout was near: it never happened", what)
		var zero T // t.Fatal ends the goroutine
		return zero
	}
}

// Until calls cond, then again at each tick of every, until it holds: for
// a state that no event announces (a figure in /proc that moves). every
// paces the reads; it is not a deadline. It fails the test with what if
// cond does not hold when the binary's -timeout is near.
func Until(t testing.TB, every time.Duration, what string, cond func() bool) {
	t.Helper()
	if cond() {
		return
	}
	end, stop := giveUp(t)
	defer stop()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if cond() {
				return
			}
		case <-end:
			t.Fatalf("waited for %s until the test binary's -timeout was near: it never happened", what)
			return
		}
	}
}
