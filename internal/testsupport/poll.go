package testsupport

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

// Poll calls check, then again every interval, until it reports done. Once
// timeout has passed and check is still not done, Poll fails the test with
// what it waited for, the timeout, and the status and error check last
// gave. It never returns unless check was done.
//
// what says what the test waits for ("sub-block-b4 to be repaired"), the
// status what check last saw ("it is UNHEALTHY"). A check that returns an
// error is not done; the error is taken for a passing one, kept as the
// last error, unless it is Permanent, which fails the test at once. A
// check may also fail the test itself (t.Fatal), as Poll calls it in the
// test's goroutine.
func Poll(t testing.TB, timeout, interval time.Duration, what string, check func() (done bool, status string, err error)) {
	t.Helper()
	poll(t, realClock{}, timeout, interval, what, check)
}

// clock is the time Poll reads and sleeps by: the real one, or a test's.
type clock interface {
	Now() time.Time
	Sleep(time.Duration)
}

type realClock struct{}

func (realClock) Now() time.Time        { return time.Now() }
func (realClock) Sleep(d time.Duration) { time.Sleep(d) }

// poll is Poll on the clock c.
func poll(t testing.TB, c clock, timeout, interval time.Duration, what string, check func() (done bool, status string, err error)) {
	t.Helper()
	deadline := c.Now().Add(timeout)
	for {
		done, status, err := check()
		var permanent *permanentError
		if errors.As(err, &permanent) {
			t.Fatal(failure(fmt.Sprintf("stopped waiting for %s: the check failed for good", what), status, permanent.err))
		}
		if done && err == nil {
			return
		}
		if c.Now().After(deadline) {
			t.Fatal(failure(fmt.Sprintf("gave up after %s waiting for %s", timeout, what), status, err))
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
