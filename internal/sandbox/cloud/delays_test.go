package cloud_test

import (
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// heldDelay is a delay a test's Schedule took, and what waits for its end.
type heldDelay struct {
	d    cloud.Delay
	then func()
}

// holdingWorld is a world whose delays are held: each is sent on the
// channel it returns, for the test to end (then).
func holdingWorld() (*cloud.World, chan heldDelay) {
	w := cloud.NewWorld(&cloud.Inventory{Project: "p", Region: "r", Zone: "z", Cluster: "c"}, "t")
	held := make(chan heldDelay, 8)
	w.Schedule = func(d cloud.Delay, then func()) { held <- heldDelay{d, then} }
	return w, held
}

func opDone(w *cloud.World, op *cloud.Operation) bool {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	return op.Done
}

// An operation's delay (Faults.OperationDelayMs) goes through the world's
// Schedule, named by the operation: its work waits for the delay's end,
// and has run, and the operation is done, once that end returned.
func TestOperationDelayIsScheduled(t *testing.T) {
	t.Parallel()
	w, held := holdingWorld()
	w.Faults.OperationDelayMs = 400
	worked := make(chan struct{})
	op := w.StartOperation("compute", "insert", "regions/r", "target", func() *cloud.OpError { close(worked); return nil })
	h := testsupport.Await(t, held, "the operation's delay")
	if want := (cloud.Delay{Kind: cloud.DelayOperation, Of: op.Name, For: 400 * time.Millisecond}); h.d != want {
		t.Errorf("delay %+v, want %+v", h.d, want)
	}
	select {
	case <-worked:
		t.Fatal("the operation's work ran before its delay ended")
	default:
	}
	if opDone(w, op) {
		t.Fatal("the operation is done before its delay ended")
	}
	h.then()
	select {
	case <-worked:
	default:
		t.Fatal("the operation's work had not run when its delay's end returned")
	}
	if !opDone(w, op) {
		t.Error("the operation is not done after its delay's end returned")
	}
}

// With no delay, an operation's work runs at once, and nothing is
// scheduled.
func TestOperationWithoutDelay(t *testing.T) {
	t.Parallel()
	w, held := holdingWorld()
	worked := make(chan struct{})
	w.StartOperation("compute", "insert", "regions/r", "target", func() *cloud.OpError { close(worked); return nil })
	testsupport.Await(t, worked, "the operation's work")
	select {
	case h := <-held: // Schedule would have been called before the work started
		t.Errorf("scheduled %+v for an operation without delay", h.d)
	default:
	}
}

// Without Schedule, After runs then on a timer.
func TestAfterWithoutSchedule(t *testing.T) {
	t.Parallel()
	w := cloud.NewWorld(&cloud.Inventory{Project: "p", Region: "r", Zone: "z", Cluster: "c"}, "t")
	ran := make(chan struct{})
	w.After(cloud.Delay{Kind: cloud.DelayLatency, For: time.Millisecond}, func() { close(ran) })
	testsupport.Await(t, ran, "then, after a 1ms delay on a timer")
	w.Wait(cloud.Delay{Kind: cloud.DelayLatency, For: time.Millisecond})
}
