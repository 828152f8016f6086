package kernel

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// EarlyPoll cuts a wait between operation polls short, once: when Changed
// signals and Ready holds, the operation is polled at once and the backoff
// starts again from the initial interval.
type EarlyPoll struct {
	Changed <-chan struct{}
	Ready   func() bool
}

// The bounds of the interval between the polls of an operation, when a
// Waiter's are zero.
const (
	DefaultPollInitial = 250 * time.Millisecond
	DefaultPollMax     = 5 * time.Second
)

// Waiter polls long-running operations, GKE's and Compute's. Initial and
// Max bound the interval between polls; zero values mean
// DefaultPollInitial and DefaultPollMax. The engine builds one from its
// options and every package that waits shares it.
type Waiter struct {
	Initial, Max time.Duration
}

// pollCadence spaces the polls of a long-running operation. Without a cue
// it backs off from Initial, doubling up to Max. A wait that has a cue
// (the nodes of the pool being created register before GKE ends its
// operation) polls slowly until the cue comes, from SlowInitial doubling
// up to SlowMax (polls that only catch an operation that fails before its
// nodes come), and from the cue backs off from Initial: GKE ends the
// operation soon after the nodes are Ready, so the poll that finds it
// DONE comes right after it ends, and a create makes a few polls instead
// of one every few seconds.
type pollCadence struct {
	Initial, Max         time.Duration
	SlowInitial, SlowMax time.Duration

	next  time.Duration
	fast  bool // polling from Initial: no cue awaited, or it came
	begun bool
}

// newPollCadence is the cadence of the bounds initial and ceiling (zero:
// DefaultPollInitial and DefaultPollMax), whose slow polls wait 3 and up to 12 times ceiling
// (15 s and 60 s by default). awaitCue says whether a cue is awaited.
func newPollCadence(initial, ceiling time.Duration, awaitCue bool) *pollCadence {
	if initial <= 0 {
		initial = DefaultPollInitial
	}
	if ceiling <= 0 {
		ceiling = DefaultPollMax
	}
	return &pollCadence{Initial: initial, Max: ceiling, SlowInitial: 3 * ceiling, SlowMax: 12 * ceiling, fast: !awaitCue}
}

// Next is the wait before the next poll.
func (c *pollCadence) Next() time.Duration {
	if !c.begun {
		c.begun = true
		c.next = c.Initial
		if !c.fast {
			c.next = c.SlowInitial
		}
	}
	d := c.next
	if c.fast {
		c.next = min(c.next*2, c.Max)
	} else {
		c.next = min(c.next*2, c.SlowMax)
	}
	return d
}

// Cue says the awaited cue came: the polls from now back off from
// Initial. (The first waits Initial too: the operation seldom ends at the
// very moment of the cue, and a poll at once would mostly find it still
// RUNNING.)
func (c *pollCadence) Cue() {
	c.fast, c.begun, c.next = true, true, c.Initial
}

// gaveUpError is a wait of PollUntil that its context ended.
type gaveUpError struct {
	// what describes the wait; elapsed is how long it lasted.
	what    string
	elapsed time.Duration
	err     error
}

func (e *gaveUpError) Error() string {
	return fmt.Sprintf("gave up after %s waiting for %s: %v", e.elapsed.Round(time.Second), e.what, e.err)
}

func (e *gaveUpError) Unwrap() error { return e.err }

// PollUntil calls check (first with true, at once) and then at the
// waiter's pollCadence until it says done, or ctx ends (a *gaveUpError).
// early, when not nil, is the cue of the cadence (see EarlyPoll). what
// describes the wait for the error when ctx ends.
func (w *Waiter) PollUntil(ctx context.Context, early *EarlyPoll, what func() string, check func(first bool) (bool, error)) error {
	cadence := newPollCadence(w.Initial, w.Max, early != nil)
	started := time.Now()
	var cue <-chan struct{}
	if early != nil {
		cue = early.Changed
	}
	for first := true; ; first = false {
		done, err := check(first)
		if done || err != nil {
			return err
		}
		timer := time.NewTimer(cadence.Next())
	wait:
		for {
			select {
			case <-ctx.Done():
				timer.Stop()
				return &gaveUpError{what: what(), elapsed: time.Since(started), err: ctx.Err()}
			case <-timer.C:
				break wait
			case <-cue:
				if early.Ready() {
					tflog.Debug(ctx, "Nodes registered: polling GKE soon", map[string]any{"wait": what()})
					cue = nil
					cadence.Cue()
					timer.Stop()
					timer = time.NewTimer(cadence.Next())
				}
			}
		}
	}
}
