package testsupport

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"
)

// Poll calls check, then again every interval, until it reports done.
// patience is how long the wait should take on any machine: once it has
// passed and check is still not done, Poll logs what it waits for and the
// last status, and waits on. How long a state takes to come on a slow or
// busy machine is no measure of whether the code is right, so Poll fails
// the test (with what it waited for and the status and error check last
// gave) only when the test binary's -timeout is near (see Await), or at
// once for a Permanent error. It never returns unless check was done.
//
// what says what the test waits for ("sub-block-b4 to be repaired"), the
// status what check last saw ("it is UNHEALTHY"). A check that returns an
// error is not done; the error is taken for a passing one, kept as the
// last error, unless it is Permanent, which fails the test at once. A
// check may also fail the test itself (t.Fatal), as Poll calls it in the
// test's goroutine.
func Poll(t testing.TB, patience, interval time.Duration, what string, check func() (done bool, status string, err error)) {
	t.Helper()
	limit := time.Duration(math.MaxInt64)
	if near, ok := nearTimeout(t); ok {
		limit = max(time.Until(near), 0)
	}
	poll(t, realClock{}, patience, limit, interval, what, check)
}

// clock is the time Poll reads and sleeps by: the real one, or a test's.
type clock interface {
	Now() time.Time
	Sleep(time.Duration)
}

type realClock struct{}

func (realClock) Now() time.Time        { return time.Now() }
func (realClock) Sleep(d time.Duration) { time.Sleep(d) }

// poll is Poll on the clock c: it logs once patience has passed, and
// fails once limit has.
func poll(t testing.TB, c clock, patience, limit, interval time.Duration, what string, check func() (done bool, status string, err error)) {
	t.Helper()
	start := c.Now()
	logged := false
	for {
		done, status, err := check()
		var permanent *permanentError
		if errors.As(err, &permanent) {
			t.Fatal(failure(fmt.Sprintf("stopped waiting for %s: the check failed for good", what), status, permanent.err))
		}
		if done && err == nil {
			return
		}
		waited := c.Now().Sub(start)
		if waited > limit {
			t.Fatal(failure(fmt.Sprintf("gave up after %s waiting for %s", limit, what), status, err))
		}
		if waited > patience && !logged {
			logged = true
			t.Log(failure(fmt.Sprintf("still waiting for %s after %s (the test binary's -timeout ends the wait)", what, patience), status, err))
		}
		c.Sleep(interval)
	}
}

// failure is Poll's message: the head, then the last status and error.
func failure(head, status string, err error) string {
	msg := head
	if status != "" {
		msg += "; last: " + status
	}
	if err != nil {
		msg += "; last error: " + err.Error()
	}
	if status == "" && err == nil {
		msg += " (the check gave no status)"
	}
	return msg
}

// Permanent marks a check's error as one that waiting will not mend:
// Poll fails the test with it at once.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }

func (e *permanentError) Unwrap() error { return e.err }
