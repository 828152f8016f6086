package kernel

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// OperationKind is what tells the waits for one API's operations apart:
// the words of their logs and errors.
type OperationKind struct {
	// progress is the debug log line of a change of status; "" logs none.
	progress string
	// describe is the wait, for the error of a wait that ran out of time.
	describe func(name string, s OperationState) string
	// readFailed is the error of a failed read of the operation.
	readFailed func(name string, err error) error
	// gaveUp, when set, is the error of a wait that its context ended
	// (err is the context's); otherwise PollUntil's *gaveUpError is.
	gaveUp func(name string, err error) error
}

// GKEOperations are GKE's operations.
var GKEOperations = OperationKind{
	progress: "GKE operation progress",
	describe: func(name string, s OperationState) string {
		return fmt.Sprintf("operation %s (%s), which was %s", name, s.Type, s.Status)
	},
	readFailed: func(name string, err error) error {
		return fmt.Errorf("reading operation %s: %s", name, APIMessage(err))
	},
}

// ComputeOperations are Compute Engine's operations. A failed read is
// returned as it is, the API's own error (a 404 stays one).
var ComputeOperations = OperationKind{
	describe:   func(name string, _ OperationState) string { return "Compute operation " + name },
	readFailed: func(_ string, err error) error { return err },
	gaveUp: func(name string, err error) error {
		return fmt.Errorf("waiting for Compute operation %s: %w", name, err)
	},
}

// WaitFor polls op until it is done, at the waiter's pollCadence (cut
// short once by early, when not nil), and returns the operation's failure
// as an *OperationError. It logs the changes of the operation's status
// (as kind says), and returns when ctx ends.
func (w *Waiter) WaitFor(ctx context.Context, op Operation, kind OperationKind, early *EarlyPoll) error {
	last := op.State()
	err := w.PollUntil(ctx, early, func() string { return kind.describe(op.Name(), last) }, func(first bool) (bool, error) {
		if !first {
			if err := op.Poll(ctx); err != nil {
				return false, kind.readFailed(op.Name(), err)
			}
			next := op.State()
			if kind.progress != "" && next.Status != last.Status {
				tflog.Debug(ctx, kind.progress, map[string]any{"operation": op.Name(), "type": next.Type, "status": next.Status})
			}
			last = next
		}
		if !last.Done {
			return false, nil
		}
		if last.Failed {
			return true, &OperationError{Name: op.Name(), Message: last.Message}
		}
		return true, nil
	})
	var gaveUp *gaveUpError
	if kind.gaveUp != nil && errors.As(err, &gaveUp) {
		return kind.gaveUp(op.Name(), gaveUp.err)
	}
	return err
}

// WaitCompute waits for the Compute operation that a call started, when
// the call (whose answer are op and err) did not fail.
func (w *Waiter) WaitCompute(ctx context.Context, op Operation, err error) error {
	if err != nil {
		return err
	}
	return w.WaitFor(ctx, op, ComputeOperations, nil)
}
