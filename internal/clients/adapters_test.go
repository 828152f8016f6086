package clients

import (
	"context"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
)

// fakeOperation is a Compute operation that is DONE at its doneAt-th poll.
type fakeOperation struct {
	polls, doneAt int
	failure       string
}

func (o *fakeOperation) Done() bool   { return o.polls >= o.doneAt }
func (o *fakeOperation) Name() string { return "operation-1" }
func (o *fakeOperation) Poll(context.Context, ...gax.CallOption) error {
	o.polls++
	return nil
}

func (o *fakeOperation) Proto() *computepb.Operation {
	p := &computepb.Operation{Name: proto.String(o.Name())}
	if o.Done() && o.failure != "" {
		p.Error = &computepb.Error{Errors: []*computepb.Errors{{Message: proto.String(o.failure)}}}
	}
	return p
}

func TestPollCompute(t *testing.T) {
	t.Parallel()
	cadence := func() *engine.PollCadence { return engine.NewPollCadence(time.Millisecond, 4*time.Millisecond, false) }

	done := &fakeOperation{}
	if err := pollCompute(t.Context(), done, cadence()); err != nil || done.polls != 0 {
		t.Errorf("an operation DONE in the insert's answer: %v after %d polls, want none", err, done.polls)
	}
	op := &fakeOperation{doneAt: 3}
	if err := pollCompute(t.Context(), op, cadence()); err != nil || op.polls != 3 {
		t.Errorf("pollCompute = %v after %d polls, want nil after 3", err, op.polls)
	}
	failed := &fakeOperation{doneAt: 1, failure: "quota"}
	if err := pollCompute(t.Context(), failed, cadence()); err == nil || !strings.Contains(err.Error(), "operation operation-1 failed: quota") {
		t.Errorf("a failed operation: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	never := &fakeOperation{doneAt: 1 << 30}
	if err := pollCompute(ctx, never, cadence()); err == nil || !strings.Contains(err.Error(), "waiting for Compute operation operation-1") {
		t.Errorf("a wait that ran out of time: %v, want one that names the operation", err)
	}
}
