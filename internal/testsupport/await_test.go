package testsupport

import (
	"strings"
	"testing"
	"time"
)

// deadlineTB is a fakeTB whose test binary's -timeout ends at deadline.
type deadlineTB struct {
	*fakeTB
	deadline time.Time
}

func (d deadlineTB) Deadline() (time.Time, bool) { return d.deadline, true }

func TestAwaitReturnsWhatCame(t *testing.T) {
	t.Parallel()
	ch := make(chan int, 1)
	ch <- 7
	var got int
	f := run(t, func(tb testing.TB) { got = Await(deadlineTB{tb.(*fakeTB), time.Now().Add(time.Hour)}, ch, "seven") })
	if f.failed || got != 7 {
		t.Errorf("Await = %d (failed: %v %s), want 7", got, f.failed, f.msg)
	}
}

// A wait whose event never comes fails, saying what it waited for, when
// the binary's -timeout is near: here it is already past, so at once.
func TestAwaitFailsNearTheTimeout(t *testing.T) {
	t.Parallel()
	f := run(t, func(tb testing.TB) {
		Await(deadlineTB{tb.(*fakeTB), time.Now().Add(-time.Second)}, make(chan struct{}), "the child to burn CPU")
		t.Error("Await returned though nothing came")
	})
	if !f.failed || !strings.Contains(f.msg, "waited for the child to burn CPU") {
		t.Errorf("failed %v with %q, want a failure that says what it waited for", f.failed, f.msg)
	}
}

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	t.Parallel()
	calls := 0
	f := run(t, func(tb testing.TB) {
		Until(tb, time.Millisecond, "the third call", func() bool { calls++; return calls == 3 })
	})
	if f.failed || calls != 3 {
		t.Errorf("condition called %d times (failed: %v %s), want 3", calls, f.failed, f.msg)
	}
}

// Until fails as Await does; the interval (an hour here) paces the reads
// and is no deadline.
func TestUntilFailsNearTheTimeout(t *testing.T) {
	t.Parallel()
	calls := 0
	f := run(t, func(tb testing.TB) {
		Until(deadlineTB{tb.(*fakeTB), time.Now().Add(-time.Second)}, time.Hour, "the figure to move", func() bool { calls++; return false })
		t.Error("Until returned though the condition never held")
	})
	if !f.failed || !strings.Contains(f.msg, "waited for the figure to move") || calls != 1 {
		t.Errorf("failed %v with %q after %d calls, want a failure that says what it waited for after the first call", f.failed, f.msg, calls)
	}
}
