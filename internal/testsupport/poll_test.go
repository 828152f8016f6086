package testsupport

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeTB is a testing.TB that records a failure instead of failing the
// test, and ends its goroutine on Fatal as the testing package does.
type fakeTB struct {
	testing.TB
	mu     sync.Mutex
	failed bool
	msg    string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatal(args ...any) {
	f.mu.Lock()
	f.failed, f.msg = true, fmt.Sprint(args...)
	f.mu.Unlock()
	runtime.Goexit()
}

func (f *fakeTB) Fatalf(format string, args ...any) { f.Fatal(fmt.Sprintf(format, args...)) }

// run calls fn with a fakeTB in a goroutine of its own, as a test runs,
// and returns the fake once fn returned or failed.
func run(t *testing.T, fn func(testing.TB)) *fakeTB {
	t.Helper()
	f := &fakeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(f)
	}()
	Await(t, done, "the polled function to return or fail")
	return f
}

// fakeClock is a clock that moves only when Poll sleeps: Poll's deadline is
// a count of its intervals, whatever the machine's speed.
type fakeClock struct {
	now   time.Time
	slept []time.Duration
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) Sleep(d time.Duration) {
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
}

func TestPollReturnsOnceDone(t *testing.T) {
	t.Parallel()
	calls := 0
	c := &fakeClock{now: time.Unix(1000, 0)}
	f := run(t, func(tb testing.TB) {
		poll(tb, c, time.Second, time.Second, time.Millisecond, "the third call", func() (bool, string, error) {
			calls++
			return calls == 3, fmt.Sprintf("call %d", calls), nil
		})
	})
	if f.failed {
		t.Fatalf("Poll failed: %s", f.msg)
	}
	if calls != 3 || len(c.slept) != 2 || c.slept[0] != time.Millisecond {
		t.Errorf("check called %d times with sleeps %v between, want 3 with two sleeps of the interval (1ms)", calls, c.slept)
	}
}

// Poll runs on the real clock: a check that is done on its second call
// returns after one interval (the timeout is not reached).
func TestPollOnTheRealClock(t *testing.T) {
	t.Parallel()
	calls := 0
	Poll(t, time.Hour, time.Millisecond, "the second call", func() (bool, string, error) {
		calls++
		return calls == 2, "", nil
	})
	if calls != 2 {
		t.Errorf("check called %d times, want 2", calls)
	}
}

// The deadline is counted on Poll's clock: with a 50ms timeout and a 5ms
// interval, the checks at 0, 5, ... 50ms are before it (50ms is not after
// it), the one at 55ms after it, and Poll fails there.
func TestPollFailsAtTheDeadline(t *testing.T) {
	t.Parallel()
	calls := 0
	start := time.Unix(1000, 0)
	c := &fakeClock{now: start}
	f := run(t, func(tb testing.TB) {
		poll(tb, c, 50*time.Millisecond, 50*time.Millisecond, 5*time.Millisecond, "the light to turn green", func() (bool, string, error) {
			calls++
			return false, fmt.Sprintf("it is red (call %d)", calls), nil
		})
		t.Error("Poll returned though the check was never done")
	})
	if !f.failed {
		t.Fatal("Poll did not fail the test")
	}
	if calls != 12 || len(c.slept) != 11 {
		t.Errorf("%d checks and %d sleeps before the failure, want 12 and 11 (a check at each 5ms to 55ms, the first after the deadline)", calls, len(c.slept))
	}
	if at := c.now.Sub(start); at != 55*time.Millisecond {
		t.Errorf("Poll failed at %s on its clock, want 55ms: the first check after the 50ms timeout", at)
	}
	for _, want := range []string{"gave up after 50ms", "waiting for the light to turn green", fmt.Sprintf("last: it is red (call %d)", calls)} {
		if !strings.Contains(f.msg, want) {
			t.Errorf("the failure %q does not say %q", f.msg, want)
		}
	}
}

func TestPollKeepsTheLastError(t *testing.T) {
	t.Parallel()
	f := run(t, func(tb testing.TB) {
		poll(tb, &fakeClock{}, 20*time.Millisecond, 20*time.Millisecond, time.Millisecond, "the API", func() (bool, string, error) {
			return true, "listing", errors.New("connection refused")
		})
	})
	if !f.failed {
		t.Fatal("Poll took a check with an error for done")
	}
	for _, want := range []string{"waiting for the API", "last: listing", "last error: connection refused"} {
		if !strings.Contains(f.msg, want) {
			t.Errorf("the failure %q does not say %q", f.msg, want)
		}
	}
}

func TestPollRetriesAPassingError(t *testing.T) {
	t.Parallel()
	calls := 0
	f := run(t, func(tb testing.TB) {
		poll(tb, &fakeClock{}, time.Second, time.Second, time.Millisecond, "the API", func() (bool, string, error) {
			calls++
			if calls == 1 {
				return false, "", errors.New("connection refused")
			}
			return true, "", nil
		})
	})
	if f.failed {
		t.Fatalf("Poll failed: %s", f.msg)
	}
}

func TestPollStopsAtAPermanentError(t *testing.T) {
	t.Parallel()
	calls := 0
	f := run(t, func(tb testing.TB) {
		poll(tb, &fakeClock{}, time.Minute, time.Minute, time.Millisecond, "the pod to be bound", func() (bool, string, error) {
			calls++
			return false, "pending", Permanent(errors.New("the namespace is gone"))
		})
	})
	if !f.failed {
		t.Fatal("Poll did not fail the test")
	}
	if calls != 1 {
		t.Errorf("check called %d times after a permanent error, want 1", calls)
	}
	for _, want := range []string{"stopped waiting for the pod to be bound", "last: pending", "last error: the namespace is gone"} {
		if !strings.Contains(f.msg, want) {
			t.Errorf("the failure %q does not say %q", f.msg, want)
		}
	}
}

func TestPollSaysWhenTheCheckGaveNoStatus(t *testing.T) {
	t.Parallel()
	f := run(t, func(tb testing.TB) {
		poll(tb, &fakeClock{}, time.Millisecond, time.Millisecond, time.Millisecond, "nothing", func() (bool, string, error) { return false, "", nil })
	})
	if !strings.Contains(f.msg, "the check gave no status") {
		t.Errorf("the failure %q does not say the check gave no status", f.msg)
	}
}

func TestPermanentOfNil(t *testing.T) {
	t.Parallel()
	if err := Permanent(nil); err != nil {
		t.Errorf("Permanent(nil) = %v, want nil", err)
	}
	base := errors.New("gone")
	if err := Permanent(base); !errors.Is(err, base) || err.Error() != "gone" {
		t.Errorf("Permanent(%v) = %v, which does not wrap it", base, err)
	}
}

// Past its patience Poll logs what it waits for and waits on; it fails
// only at its limit (the test binary's -timeout, for Poll itself).
func TestPollWaitsPastItsPatience(t *testing.T) {
	t.Parallel()
	calls := 0
	c := &fakeClock{now: time.Unix(1000, 0)}
	f := run(t, func(tb testing.TB) {
		poll(tb, c, 10*time.Millisecond, time.Second, 5*time.Millisecond, "the light to turn green", func() (bool, string, error) {
			calls++
			return calls == 10, fmt.Sprintf("call %d", calls), nil
		})
	})
	if f.failed {
		t.Fatalf("Poll failed past its patience, before its limit: %s", f.msg)
	}
	if calls != 10 {
		t.Errorf("check called %d times, want 10: Poll waited on past its 10ms patience until the check was done", calls)
	}
}
