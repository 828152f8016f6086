package kernel_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
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
	never := &enginetest.Operation{OpName: "operation-1", OpType: "insert", DoneAt: 1 << 30}
	err = e.WaitCompute(ctx, never, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "gave up after ") ||
		!strings.HasSuffix(err.Error(), " waiting for Compute operation operation-1 (insert), which was RUNNING: context deadline exceeded") ||
		!errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a wait that ran out of time: %v, want one that names the operation, its type and its last status", err)
	}
}

// endingContext is a context whose deadline passes when end is called.
type endingContext struct {
	context.Context
	done chan struct{}
	once sync.Once
}

func (c *endingContext) Done() <-chan struct{} { return c.done }

func (c *endingContext) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

func (c *endingContext) end() { c.once.Do(func() { close(c.done) }) }

// cutPoll is an operation whose read is cut by the end of the wait's
// context.
type cutPoll struct {
	ctx   *endingContext
	polls int
}

func (o *cutPoll) Name() string { return "operation-2" }
func (o *cutPoll) State() kernel.OperationState {
	return kernel.OperationState{Type: "insert", Status: "RUNNING"}
}

func (o *cutPoll) Poll(context.Context) error {
	o.polls++
	o.ctx.end()
	return fmt.Errorf("Get \"https://compute.example/operations/operation-2\": %w", context.DeadlineExceeded)
}

// A wait whose end cuts an operation's read short gives up as one that
// ended between reads: naming the operation and its last status, not
// with the read's error.
func TestWaitCutInARead(t *testing.T) {
	t.Parallel()
	e := &kernel.Waiter{Initial: time.Millisecond, Max: time.Millisecond}
	ctx := &endingContext{Context: t.Context(), done: make(chan struct{})}
	op := &cutPoll{ctx: ctx}
	err := e.WaitCompute(ctx, op, nil)
	if err == nil || !strings.HasSuffix(err.Error(), " waiting for Compute operation operation-2 (insert), which was RUNNING: context deadline exceeded") ||
		!errors.Is(err, context.DeadlineExceeded) || op.polls != 1 {
		t.Errorf("a wait cut in a read: %v after %d reads, want one read and the gave-up error naming the operation", err, op.polls)
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
		!strings.HasSuffix(err.Error(), " waiting for operation op-create, which was RUNNING: context deadline exceeded") || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want a gave-up error naming the operation and its status", err)
	}
	gone := &enginetest.Operation{OpName: "op-create", DoneAt: 1, PollErr: &googleapi.Error{Code: http.StatusForbidden, Message: "denied"}}
	if err := e.WaitFor(t.Context(), gone, kernel.GKEOperations, nil); err == nil || err.Error() != "reading operation op-create: denied" {
		t.Errorf("a failed read: %v", err)
	}
}
