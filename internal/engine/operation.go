package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// operationKind is what tells the waits for one API's operations apart:
// the words of their logs and errors.
type operationKind struct {
	// progress is the debug log line of a change of status; "" logs none.
	progress string
	// describe is the wait, for the error of a wait that ran out of time.
	describe func(name string, s OperationState) string
	// readFailed is the error of a failed read of the operation.
	readFailed func(name string, err error) error
	// gaveUp, when set, is the error of a wait that its context ended
	// (err is the context's); otherwise pollUntil's *gaveUpError is.
	gaveUp func(name string, err error) error
}

// gkeOperations are GKE's operations.
var gkeOperations = operationKind{
	progress: "GKE operation progress",
	describe: func(name string, s OperationState) string {
		return fmt.Sprintf("operation %s (%s), which was %s", name, s.Type, s.Status)
	},
	readFailed: func(name string, err error) error {
		return fmt.Errorf("reading operation %s: %s", name, kernel.APIMessage(err))
	},
}

// computeOperations are Compute Engine's operations. A failed read is
// returned as it is, the API's own error (a 404 stays one).
var computeOperations = operationKind{
	describe:   func(name string, _ OperationState) string { return "Compute operation " + name },
	readFailed: func(_ string, err error) error { return err },
	gaveUp: func(name string, err error) error {
		return fmt.Errorf("waiting for Compute operation %s: %w", name, err)
	},
}

// waitFor polls op until it is done, at the engine's pollCadence (cut
// short once by early, when not nil), and returns the operation's failure
// as an *OperationError. It logs the changes of the operation's status
// (as kind says), and returns when ctx ends.
func (e *Engine) waitFor(ctx context.Context, op Operation, kind operationKind, early *earlyPoll) error {
	last := op.State()
	err := e.pollUntil(ctx, early, func() string { return kind.describe(op.Name(), last) }, func(first bool) (bool, error) {
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

// waitCompute waits for the Compute operation that a call started, when
// the call (whose answer are op and err) did not fail.
func (e *Engine) waitCompute(ctx context.Context, op Operation, err error) error {
	if err != nil {
		return err
	}
	return e.waitFor(ctx, op, computeOperations, nil)
}
