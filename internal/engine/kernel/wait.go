package kernel

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// OperationKind is what tells the waits for one API's operations apart:
// the words of their logs and errors.
type OperationKind struct {
	// progress is the debug log line of a change of status; "" logs none.
	progress string
	// api names the operations in the error of a wait that ran out of
	// time ("" for GKE's, which the create's error names already).
	api string
	// readFailed is the error of a failed read of the operation.
	readFailed func(name string, err error) error
}

// describe is the wait for the operation name, last seen as s, for the
// error of a wait that ran out of time: its name, type and last status,
// as "operation operation-1 (CREATE_NODE_POOL), which was RUNNING".
func (k OperationKind) describe(name string, s OperationState) string {
	d := "operation " + name
	if k.api != "" {
		d = k.api + " " + d
	}
	if s.Type != "" {
		d += " (" + s.Type + ")"
	}
	status := s.Status
	if status == "" {
		status = "of no status yet"
	}
	return d + ", which was " + status
}

// pollFailed is the error of a failed read of the operation name, or nil
// when the end of the wait's context cut the read short: the wait then
// gives up, naming the operation as last read, not the read's error.
func (k OperationKind) pollFailed(ctx context.Context, name string, err error) error {
	if ctx.Err() == nil {
		return k.readFailed(name, err)
	}
	return nil
}

// GKEOperations are GKE's operations.
var GKEOperations = OperationKind{
	progress: "GKE operation progress",
	readFailed: func(name string, err error) error {
		return fmt.Errorf("reading operation %s: %s", name, APIMessage(err))
	},
}

// ComputeOperations are Compute Engine's operations. A failed read is
// returned as it is, the API's own error (a 404 stays one).
var ComputeOperations = OperationKind{
	api:        "Compute",
	readFailed: func(_ string, err error) error { return err },
}

// WaitFor polls op until it is done, at the waiter's pollCadence (cut
// short once by early, when not nil), and returns the operation's failure
// as an *OperationError. It logs the changes of the operation's status
// (as kind says), and returns when ctx ends, with an error that wraps
// ctx's and names the operation, its type and its last status.
func (w *Waiter) WaitFor(ctx context.Context, op Operation, kind OperationKind, early *EarlyPoll) error {
	last := op.State()
	return w.PollUntil(ctx, early, func() string { return kind.describe(op.Name(), last) }, func(first bool) (bool, error) {
		if !first {
			if err := op.Poll(ctx); err != nil {
				return false, kind.pollFailed(ctx, op.Name(), err)
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
}

// WaitCompute waits for the Compute operation that a call started, when
// the call (whose answer are op and err) did not fail.
func (w *Waiter) WaitCompute(ctx context.Context, op Operation, err error) error {
	if err != nil {
		return err
	}
	return w.WaitFor(ctx, op, ComputeOperations, nil)
}
