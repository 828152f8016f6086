package engine

import (
	"context"
	"fmt"

	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// gkeOperation is a GKE operation as the engine's waiter polls it: read
// again by its full name.
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

// waitOperation polls a GKE operation until it is DONE, with backoff, and
// returns the operation's own error. early, when not nil, may cut one wait
// short (see earlyPoll).
func (e *Engine) waitOperation(ctx context.Context, project, location string, op *container.Operation, early *earlyPoll) error {
	path := fmt.Sprintf("projects/%s/locations/%s/operations/%s", project, location, op.Name)
	return e.waitFor(ctx, &gkeOperation{gke: e.gke, path: path, op: op}, gkeOperations, early)
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
			return false, fmt.Errorf("reading node pool %s: %s", id, kernel.APIMessage(err))
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
