package kernel_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"google.golang.org/api/googleapi"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// The waiter polls a Compute operation at the waiter's cadence until it
// is DONE, and maps its failure, a failed read and the end of the wait to
// the errors the adapters returned when the wait was theirs.
func TestWaitForComputeOperation(t *testing.T) {
	t.Parallel()
	e := &kernel.Waiter{Initial: time.Millisecond, Max: 5 * time.Millisecond}

	done := enginetest.DoneOperation("operation-1")
	if err := e.WaitCompute(t.Context(), done, nil); err != nil || done.Polls != 0 {
		t.Errorf("an operation DONE in the insert's answer: %v after %d polls, want none", err, done.Polls)
	}
	op := &enginetest.Operation{OpName: "operation-1", DoneAt: 3}
	if err := e.WaitCompute(t.Context(), op, nil); err != nil || op.Polls != 3 {
		t.Errorf("waitCompute = %v after %d polls, want nil after 3", err, op.Polls)
	}
	failed := &enginetest.Operation{OpName: "operation-1", DoneAt: 1, Failure: "quota"}
	err := e.WaitCompute(t.Context(), failed, nil)
	var opErr *kernel.OperationError
	if !errors.As(err, &opErr) || err.Error() != "operation operation-1 failed: quota" || opErr.Message != "quota" {
		t.Errorf("a failed operation: %v, want an OperationError of its message", err)
	}
	gone := &enginetest.Operation{OpName: "operation-1", DoneAt: 1, PollErr: &googleapi.Error{Code: http.StatusNotFound, Message: "gone"}}
	if err := e.WaitCompute(t.Context(), gone, nil); !kernel.IsNotFound(err) {
		t.Errorf("a failed read: %v, want the API's own error (a 404)", err)
	}
	started := errors.New("the call failed")
	if err := e.WaitCompute(t.Context(), nil, started); err != started {
		t.Errorf("a call that failed: %v, want its error", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	never := &enginetest.Operation{OpName: "operation-1", DoneAt: 1 << 30}
	err = e.WaitCompute(ctx, never, nil)
	if err == nil || err.Error() != "waiting for Compute operation operation-1: context deadline exceeded" || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a wait that ran out of time: %v, want one that names the operation", err)
	}
}

// A GKE operation's wait that runs out of time names the operation, its
// type and its last status.
func TestWaitForGKEOperationGivesUp(t *testing.T) {
	t.Parallel()
	e := &kernel.Waiter{Initial: time.Millisecond, Max: 5 * time.Millisecond}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	never := &enginetest.Operation{OpName: "op-create", DoneAt: 1 << 30}
	err := e.WaitFor(ctx, never, kernel.GKEOperations, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "gave up after ") ||
		!strings.HasSuffix(err.Error(), " waiting for operation op-create (), which was RUNNING: context deadline exceeded") || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want a gave-up error naming the operation and its status", err)
	}
	gone := &enginetest.Operation{OpName: "op-create", DoneAt: 1, PollErr: &googleapi.Error{Code: http.StatusForbidden, Message: "denied"}}
	if err := e.WaitFor(t.Context(), gone, kernel.GKEOperations, nil); err == nil || err.Error() != "reading operation op-create: denied" {
		t.Errorf("a failed read: %v", err)
	}
}
