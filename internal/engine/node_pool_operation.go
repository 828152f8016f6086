package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"
)

// earlyPoll cuts a wait between operation polls short, once: when changed
// signals and ready holds, the operation is polled at once and the backoff
// starts again from the initial interval.
type earlyPoll struct {
	changed <-chan struct{}
	ready   func() bool
}

// waitOperation polls a GKE operation until it is DONE, with backoff, and
// returns the operation's own error. early, when not nil, may cut one wait
// short (see earlyPoll).
func (e *Engine) waitOperation(ctx context.Context, project, location string, op *container.Operation, early *earlyPoll) error {
	name := fmt.Sprintf("projects/%s/locations/%s/operations/%s", project, location, op.Name)
	return e.pollUntil(ctx, early, func() string {
		return fmt.Sprintf("operation %s (%s), which was %s", op.Name, op.OperationType, op.Status)
	}, func(first bool) (bool, error) {
		if !first {
			next, err := e.gke.GetOperation(ctx, name)
			if err != nil {
				return false, fmt.Errorf("reading operation %s: %s", op.Name, apiMessage(err))
			}
			if next.Status != op.Status {
				tflog.Debug(ctx, "GKE operation progress", map[string]any{"operation": op.Name, "type": next.OperationType, "status": next.Status})
			}
			op = next
		}
		if op.Status != "DONE" {
			return false, nil
		}
		if op.Error != nil && (op.Error.Code != 0 || op.Error.Message != "") {
			return true, fmt.Errorf("operation %s failed: %s", op.Name, op.Error.Message)
		}
		return true, nil
	})
}

// waitPoolProvisioned polls a node pool whose create operation is not
// known (the pool was adopted) until it leaves PROVISIONING.
func (e *Engine) waitPoolProvisioned(ctx context.Context, id string, early *earlyPoll) error {
	status := "PROVISIONING"
	return e.pollUntil(ctx, early, func() string {
		return fmt.Sprintf("node pool %s, which was %s", id, status)
	}, func(bool) (bool, error) {
		p, err := e.gke.GetNodePool(ctx, id)
		if err != nil {
			return false, fmt.Errorf("reading node pool %s: %s", id, apiMessage(err))
		}
		status = p.Status
		switch status {
		case "RUNNING":
			return true, nil
		case "PROVISIONING", "RECONCILING", "STATUS_UNSPECIFIED", "":
			return false, nil
		}
		return true, fmt.Errorf("node pool %s is %s: %s", id, status, p.StatusMessage)
	})
}

// PollCadence spaces the polls of a long-running operation. Without a cue
// it backs off from Initial, doubling up to Max. A wait that has a cue
// (the nodes of the pool being created register before GKE ends its
// operation) polls slowly until the cue comes, from SlowInitial doubling
// up to SlowMax (polls that only catch an operation that fails before its
// nodes come), and from the cue backs off from Initial: GKE ends the
// operation soon after the nodes are Ready, so the poll that finds it
// DONE comes right after it ends, and a create makes a few polls instead
// of one every few seconds.
type PollCadence struct {
	Initial, Max         time.Duration
	SlowInitial, SlowMax time.Duration

	next  time.Duration
	fast  bool // polling from Initial: no cue awaited, or it came
	begun bool
}

// NewPollCadence is the cadence of the bounds initial and ceiling (zero:
// 250 ms and 5 s), whose slow polls wait 3 and up to 12 times ceiling
// (15 s and 60 s by default). awaitCue says whether a cue is awaited.
func NewPollCadence(initial, ceiling time.Duration, awaitCue bool) *PollCadence {
	if initial == 0 {
		initial = 250 * time.Millisecond
	}
	if ceiling == 0 {
		ceiling = 5 * time.Second
	}
	return &PollCadence{Initial: initial, Max: ceiling, SlowInitial: 3 * ceiling, SlowMax: 12 * ceiling, fast: !awaitCue}
}

// Next is the wait before the next poll.
func (c *PollCadence) Next() time.Duration {
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
func (c *PollCadence) Cue() {
	c.fast, c.begun, c.next = true, true, c.Initial
}

// pollUntil calls check (first with true, at once) and then at the
// engine's PollCadence until it says done, or ctx ends. early, when not
// nil, is the cue of the cadence (see earlyPoll). what describes the wait
// for the error when ctx ends.
func (e *Engine) pollUntil(ctx context.Context, early *earlyPoll, what func() string, check func(first bool) (bool, error)) error {
	initial, ceiling := e.pollBounds()
	cadence := NewPollCadence(initial, ceiling, early != nil)
	started := time.Now()
	var cue <-chan struct{}
	if early != nil {
		cue = early.changed
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
				return fmt.Errorf("gave up after %s waiting for %s: %w", time.Since(started).Round(time.Second), what(), ctx.Err())
			case <-timer.C:
				break wait
			case <-cue:
				if early.ready() {
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
