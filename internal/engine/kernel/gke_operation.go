package kernel

import (
	"context"
	"fmt"

	container "google.golang.org/api/container/v1"
)

// gkeOperation is a GKE operation as the waiter polls it: read again by
// its full name.
type gkeOperation struct {
	gke  GKE
	path string // projects/P/locations/L/operations/N
	op   *container.Operation
}

func (o *gkeOperation) Name() string { return o.op.Name }

func (o *gkeOperation) State() OperationState {
	s := OperationState{Done: o.op.Status == "DONE", Type: o.op.OperationType, Status: o.op.Status}
	if e := o.op.Error; e != nil && (e.Code != 0 || e.Message != "") {
		s.Failed, s.Message = true, e.Message
	}
	return s
}

func (o *gkeOperation) Poll(ctx context.Context) error {
	next, err := o.gke.GetOperation(ctx, o.path)
	if err != nil {
		return err
	}
	o.op = next
	return nil
}

// WaitGKE polls a GKE operation, read through gke, until it is DONE, with
// backoff, and returns the operation's own error. early, when not nil, may
// cut one wait short (see EarlyPoll).
func (w *Waiter) WaitGKE(ctx context.Context, gke GKE, project, location string, op *container.Operation, early *EarlyPoll) error {
	path := fmt.Sprintf("projects/%s/locations/%s/operations/%s", project, location, op.Name)
	return w.WaitFor(ctx, &gkeOperation{gke: gke, path: path, op: op}, GKEOperations, early)
}
