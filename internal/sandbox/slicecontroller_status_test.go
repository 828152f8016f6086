package sandbox

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Forming a slice records one Event, not one per reconcile: labelling
// the slice's 64 nodes re-queues it before its own ACTIVE write is back in
// the controller's cache, and that reconcile must not announce it again.
func TestSliceFormationEventOnce(t *testing.T) {
	needSandbox(t)
	ids := partitionsOf(t, "tpu7x-reservation", "block-a", "sub-block-a1", "sub-block-a2", "sub-block-a3", "sub-block-a4")
	createSlice(t, "announced-once", "4x8x8", ids, nil)
	uid := waitSliceState(t, "announced-once", ReasonActive).GetUID()
	// One worker reconciles a slice's steps in order: once the deleted
	// slice is gone, every reconcile of its formation has recorded what
	// it records.
	deleteSliceAndWait(t, "announced-once")
	reasons, messages := sliceEvents(t, uid)
	if n := count(reasons, corev1.EventTypeNormal+"/"+ReasonActive); n != 1 {
		t.Errorf("%d %s Events for one formation (all: %v); want 1", n, ReasonActive, reasons)
	}
	if msg := messages[ReasonActive]; msg != "The slice is formed and healthy." {
		t.Errorf("formation Event message %q", msg)
	}
}
