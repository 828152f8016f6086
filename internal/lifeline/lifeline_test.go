package lifeline

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// A parent PID that changes (the parent died; init adopted the process)
// is reported once, with both PIDs, and Watch returns.
func TestWatchReportsAChangedParent(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	getppid := func() int {
		if calls.Add(1) > 3 {
			return 1
		}
		return 4242
	}
	var reports []Gone
	done := make(chan struct{})
	go func() {
		Watch(t.Context(), getppid, time.Millisecond, func(g Gone) { reports = append(reports, g) })
		close(done)
	}()
	testsupport.Await(t, done, "Watch to return after the parent PID changed")
	if len(reports) != 1 || reports[0].Was != 4242 || reports[0].Now != 1 {
		t.Fatalf("reports = %+v, want one, from 4242 to 1", reports)
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("getppid called %d times, want 4 (it stops at the change)", n)
	}
}

// The same parent is never reported, and Watch ends with its context: 20
// reads of the same PID report nothing, and the context's end stops the
// watch.
func TestWatchStaysWhileTheParentLives(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	read20 := make(chan struct{})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		Watch(ctx, func() int {
			if calls.Add(1) == 20 {
				close(read20)
			}
			return 4242
		}, time.Millisecond, func(g Gone) { t.Errorf("reported %+v", g) })
		close(done)
	}()
	testsupport.Await(t, read20, "Watch to read the parent PID 20 times")
	cancel()
	testsupport.Await(t, done, "Watch to return when its context ended")
}

func TestMessage(t *testing.T) {
	t.Parallel()
	got := Message("gke", Gone{Was: 4242, Now: 1})
	for _, want := range []string{"gke", "pid 4242", "is gone", "pid 1", "exiting"} {
		if !strings.Contains(got, want) {
			t.Errorf("Message = %q, lacks %q", got, want)
		}
	}
}
