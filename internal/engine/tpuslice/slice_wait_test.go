package tpuslice

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// sliceEngine is an engine over a fake API server that holds slices, and
// a way to report a slice's state as the controller does.
func sliceEngine(slices ...runtime.Object) (*Slices, func(name, state, message string)) {
	e, setState, _ := watchedSliceEngine(slices...)
	return e, setState
}

// watchedSliceEngine is sliceEngine, and a channel closed when a wait has
// read the Slice (its first get: the wait follows the inventory's watch,
// which is open by then, from that state on).
func watchedSliceEngine(slices ...runtime.Object) (*Slices, func(name, state, message string), <-chan struct{}) {
	dyn := enginetest.NewDynamic(slices...)
	read := make(chan struct{})
	var once sync.Once
	dyn.PrependReactor("get", "slices", func(k8stesting.Action) (bool, runtime.Object, error) {
		once.Do(func() { close(read) })
		return false, nil, nil // the tracker answers
	})
	e := newSlicesOver(nil, func(context.Context) (Cluster, error) { return kernel.NewCluster(fake.NewClientset(), dyn), nil })
	setState := func(name, state, message string) {
		// From the tracker: a get through the client is the wait's read.
		o, err := dyn.Tracker().Get(SliceGVR, "", name)
		if err != nil {
			panic(err)
		}
		u := o.(*unstructured.Unstructured).DeepCopy()
		status := map[bool]string{true: "True", false: "False"}[state == clusterread.SliceActive || state == clusterread.SliceActiveDegraded]
		_ = unstructured.SetNestedSlice(u.Object, []any{map[string]any{"type": "Ready", "status": status, "reason": state, "message": message}}, "status", "conditions")
		if _, err := dyn.Resource(SliceGVR).UpdateStatus(context.Background(), u, metav1.UpdateOptions{}); err != nil {
			panic(err)
		}
	}
	return e, setState, read
}

// waitSlice follows the controller's verdicts: it returns at ACTIVE, keeps
// waiting through ACTIVATING and (with retry-on-failure) through
// SliceCreationFailed, fails at once on FAILED with the controller's
// message, and on its context's end says the last state it saw.
func TestWaitSlice(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		steps         []string // states the controller reports, in order
		allowDegraded bool
		retry         bool
		giveUp        bool   // the wait's context ends once the last state was reported
		want          string // empty: ready
	}{
		"active":                      {steps: []string{SliceActivating, clusterread.SliceActive}},
		"degraded allowed":            {steps: []string{SliceActivating, clusterread.SliceActiveDegraded}, allowDegraded: true},
		"degraded refused":            {steps: []string{SliceActivating, clusterread.SliceActiveDegraded}, want: "formed ACTIVE_DEGRADED (controller says so), and allow_degraded is false"},
		"failed":                      {steps: []string{SliceActivating, clusterread.SliceFailed}, want: "slice s failed: FAILED: controller says so"},
		"creation failed":             {steps: []string{clusterread.SliceCreationFailed}, want: "slice s failed: SliceCreationFailed: controller says so"},
		"creation failed, then retry": {steps: []string{clusterread.SliceCreationFailed, SliceActivating, clusterread.SliceActive}, retry: true},
		"still activating":            {steps: []string{SliceActivating}, giveUp: true, want: "its last state was ACTIVATING (controller says so): context canceled"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e, setState, read := watchedSliceEngine(enginetest.Slice("s", "p1"))
			// The timeout only keeps a wait that never ends from hanging
			// the test.
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			// The first state is read; the others come through the
			// inventory's watch.
			setState("s", tc.steps[0], "controller says so")
			go func() {
				<-read // the wait read the Slice, and saw its first state
				for _, state := range tc.steps[1:] {
					setState("s", state, "controller says so")
				}
				if tc.giveUp {
					cancel()
				}
			}()
			s, err := e.waitSlice(ctx, "s", tc.allowDegraded, tc.retry)
			switch {
			case tc.want == "" && (err != nil || s == nil || !s.Ready):
				t.Fatalf("WaitSlice = %+v, %v; want a ready slice", s, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("WaitSlice error = %v; want it to say %q", err, tc.want)
			}
		})
	}
}

// A Slice that does not exist, or is deleted while waited for, ends the
// wait at once.
func TestWaitSliceGone(t *testing.T) {
	t.Parallel()
	e, _ := sliceEngine()
	if _, err := e.waitSlice(t.Context(), "missing", false, false); err == nil || !strings.Contains(err.Error(), "Slice missing does not exist") {
		t.Errorf("WaitSlice(missing) = %v; want it to say the Slice does not exist", err)
	}
}

// DeleteSlice deletes and waits until the Slice is gone; a Slice already
// gone is no error; a Slice that Kueue owns is left alone and reported;
// one stuck on its finalizer fails at the timeout, or with
// force_remove_finalizer loses its finalizer and is reported.
func TestDeleteSlice(t *testing.T) {
	t.Parallel()
	t.Run("deleted", func(t *testing.T) {
		t.Parallel()
		e, _ := sliceEngine(enginetest.Slice("s", "p1"))
		if res, err := e.DeleteSlice(t.Context(), "s", false); err != nil || res != (SliceDeleted{}) {
			t.Fatalf("DeleteSlice = %+v, %v; want nothing to say and no error", res, err)
		}
		if _, err := e.ReadSlice(t.Context(), "s"); !errors.Is(err, kernel.ErrNotFound) {
			t.Errorf("after DeleteSlice, ReadSlice = %v; want ErrNotFound", err)
		}
	})
	t.Run("already gone", func(t *testing.T) {
		t.Parallel()
		e, _ := sliceEngine()
		if res, err := e.DeleteSlice(t.Context(), "s", false); err != nil || res != (SliceDeleted{}) {
			t.Fatalf("DeleteSlice of a missing Slice = %+v, %v; want nothing", res, err)
		}
	})
	t.Run("owned by Kueue", func(t *testing.T) {
		t.Parallel()
		owned := enginetest.Slice("s", "p1")
		owned.SetAnnotations(map[string]string{wellknown.AnnotationOwnerWorkloadNamespace: "ns", wellknown.AnnotationOwnerWorkloadName: "job"})
		e, _ := sliceEngine(owned)
		res, err := e.DeleteSlice(t.Context(), "s", false)
		if err != nil || res.KueueWorkload != "ns/job" || res.FinalizerRemoved || !strings.Contains(res.Message, "owned by Kueue (workload ns/job)") {
			t.Fatalf("DeleteSlice of a Kueue Slice = %+v, %v; want it left to workload ns/job, saying so", res, err)
		}
		if _, err := e.ReadSlice(t.Context(), "s"); err != nil {
			t.Errorf("the Kueue Slice was deleted: %v", err)
		}
	})
	stuck := func(t *testing.T, force bool) (SliceDeleted, error) {
		dyn := enginetest.NewDynamic(enginetest.Slice("s", "p1"))
		// The finalizer holds the Slice: a delete only marks it.
		dyn.PrependReactor("delete", "slices", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, nil })
		dyn.PrependReactor("patch", "slices", func(a k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, dyn.Tracker().Delete(SliceGVR, "", "s")
		})
		e := newSlicesOver(nil, func(context.Context) (Cluster, error) { return kernel.NewCluster(fake.NewClientset(), dyn), nil })
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		return e.DeleteSlice(ctx, "s", force)
	}
	t.Run("stuck", func(t *testing.T) {
		t.Parallel()
		if _, err := stuck(t, false); err == nil || !strings.Contains(err.Error(), "set force_remove_finalizer = true") {
			t.Fatalf("DeleteSlice of a stuck Slice = %v; want the advice on force_remove_finalizer", err)
		}
	})
	t.Run("stuck, finalizer removed", func(t *testing.T) {
		t.Parallel()
		res, err := stuck(t, true)
		if err != nil || !res.FinalizerRemoved || !strings.Contains(res.Message, "its finalizer accelerator.gke.io/slice-finalizer was removed") {
			t.Fatalf("DeleteSlice with force = %+v, %v; want the finalizer removed, saying so", res, err)
		}
	})
}
