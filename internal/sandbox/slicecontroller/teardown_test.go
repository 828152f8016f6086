package slicecontroller

import (
	"context"
	"testing"
)

// A deleted slice is walked through DEACTIVATING and INCOMPLETE, a step
// apart, its nodes' slice labels taken off, and then its finalizer is
// released and the slice is gone. The teardown is not announced, and a
// new slice of the same name starts afresh.
func TestDeletionTearsDown(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.addPartition("pa", "4x4x4", healthy, "block-a")
	r.createSlice("s", "4x4x4", false, "pa")
	r.step("s")
	r.stepUntil("s", ReasonActive)

	r.deleteSlice()
	if r.slice("s") == nil {
		t.Fatal("the slice went at once; want it kept by its finalizer")
	}
	if after := r.step("s"); after <= 0 || r.state("s") != ReasonDeactivating {
		t.Fatalf("first teardown step: %s, look again after %s; want DEACTIVATING, and a next step", r.state("s"), after)
	}
	if _, ok := r.c.MarkedActive("s"); ok {
		t.Error("the deleted slice is still marked active")
	}
	r.wantSliceLabels("pa", "4x4x4", "s", "4x4x4")
	if after := r.step("s"); after <= 0 || r.state("s") != ReasonIncomplete {
		t.Fatalf("second teardown step: %s, look again after %s; want INCOMPLETE, and a next step", r.state("s"), after)
	}
	r.wantSliceLabels("pa", "4x4x4", "", "")
	r.step("s")
	if r.slice("s") != nil {
		t.Fatalf("the slice is still there: finalizers %v", r.slice("s").GetFinalizers())
	}
	if after := r.step("s"); after != 0 {
		t.Errorf("a reconcile of the gone slice asks to look again after %s", after)
	}
	r.wantEvents("s Normal ACTIVE")

	r.createSlice("s", "4x4x4", false, "pa")
	r.step("s")
	r.stepUntil("s", ReasonActive)
	r.wantEvents("s Normal ACTIVE", "s Normal ACTIVE")
}

// While the cloud holds slice finalizers (Faults.HoldSliceFinalizers), a
// deleted slice stays INCOMPLETE, the controller looking again after the
// retry interval; once they are released, it goes.
func TestHeldFinalizers(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.cloud.holdFinalizers = true
	r.addPartition("pa", "4x4x4", healthy, "block-a")
	r.createSlice("s", "4x4x4", false, "pa")
	r.step("s") // the finalizer
	r.step("s") // SliceNotCreated
	r.deleteSlice()
	wantStates(t, r.stepUntil("s", ReasonIncomplete), ReasonDeactivating, ReasonIncomplete)
	for range 2 {
		if after := r.step("s"); after != sliceRetryInterval || r.slice("s") == nil {
			t.Fatalf("with finalizers held: look again after %s, slice kept %v; want the retry interval and the slice", after, r.slice("s") != nil)
		}
	}
	r.cloud.mu.Lock()
	r.cloud.holdFinalizers = false
	r.cloud.mu.Unlock()
	r.step("s")
	if r.slice("s") != nil {
		t.Error("the slice is still there once the finalizers are released")
	}
	r.wantEvents()
}

// A slice deleted before the controller put its finalizer on goes at
// once; a reconcile of it does nothing.
func TestDeletionWithoutFinalizer(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.createSlice("s", "4x4x4", false, "pa")
	r.deleteSlice()
	if r.slice("s") != nil {
		t.Fatal("a slice without finalizers was kept")
	}
	if after, err := r.c.reconcile(context.Background(), "s"); after != 0 || err != nil {
		t.Errorf("reconcile of a slice not in the cache: %s, %v", after, err)
	}
	if r.updates() != 0 {
		t.Errorf("%d write(s)", r.updates())
	}
}
