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

// pollUntil calls check (first with true, at once) and then with backoff
// until it says done, or ctx ends. early, when not nil, may cut one wait
// short (see earlyPoll). what describes the wait for the error when ctx
// ends.
func (e *Engine) pollUntil(ctx context.Context, early *earlyPoll, what func() string, check func(first bool) (bool, error)) error {
	initial, ceiling := e.pollBounds()
	interval := initial
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
		timer := time.NewTimer(interval)
		interval = min(interval*2, ceiling)
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
					tflog.Debug(ctx, "Nodes registered: polling GKE now", map[string]any{"wait": what()})
					timer.Stop()
					cue, interval = nil, initial
					break wait
				}
			}
		}
	}
}
