package sandbox

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func testSlices(t *testing.T) dynamic.ResourceInterface {
	t.Helper()
	dyn, err := dynamic.NewForConfig(testSandbox.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return dyn.Resource(SliceGVR)
}

// partitionsOf creates one 16-node pool per named sub-block and returns
// their partition IDs, in order.
func partitionsOf(t *testing.T, reservation, block string, subBlocks ...string) []string {
	t.Helper()
	svc := newGKEService(t)
	ids := make([]string, len(subBlocks))
	for i, sub := range subBlocks {
		pool := "sl-" + sub
		if err := createPool(t, svc, poolSpec(pool, reservationPath(reservation, block, sub), 16)); err != nil {
			t.Fatal(err)
		}
		nodes := poolNodes(t, pool)
		if len(nodes) == 0 {
			t.Fatalf("pool %s has no nodes", pool)
		}
		ids[i] = nodes[0].Labels[wellknown.LabelPartitionID]
	}
	return ids
}

// sliceRecorder records every Ready reason a slice goes through.
type sliceRecorder struct {
	mu      sync.Mutex
	reasons []string
	// changed is signalled when a reason is recorded.
	changed chan struct{}
}

// seenUntil waits until the recorder has seen reason (its own watch may
// trail the test's), then returns every reason seen; it fails the test
// when the test binary's -timeout is near.
func (r *sliceRecorder) seenUntil(t *testing.T, reason string) []string {
	t.Helper()
	deadline, stop := testsupport.NearTimeout(t)
	defer stop()
	for {
		got := r.seen()
		for _, g := range got {
			if g == reason {
				return got
			}
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("the slice's watch saw %v, never %s", got, reason)
		}
	}
}

func (r *sliceRecorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reasons...)
}

// createSlice creates a Slice, records its states, and deletes it (waiting
// until it is gone) when the test ends.
func createSlice(t *testing.T, name, topo string, ids []string, annotations map[string]string) *sliceRecorder {
	t.Helper()
	slices := testSlices(t)
	rec := &sliceRecorder{changed: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	w, err := slices.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for ev := range w.ResultChan() {
			if obj, ok := ev.Object.(*unstructured.Unstructured); ok {
				reason, _ := slicecontroller.ReadyReason(obj)
				rec.mu.Lock()
				if reason != "" && (len(rec.reasons) == 0 || rec.reasons[len(rec.reasons)-1] != reason) {
					rec.reasons = append(rec.reasons, reason)
					select {
					case rec.changed <- struct{}{}:
					default:
					}
				}
				rec.mu.Unlock()
			}
		}
	}()
	obj := newSliceObject(name, "tpu7x", topo, ids...)
	obj.SetAnnotations(annotations)
	if _, err := slices.Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		defer cancel()
		deleteSliceAndWait(t, name)
	})
	return rec
}

func deleteSliceAndWait(t *testing.T, name string) {
	t.Helper()
	slices := testSlices(t)
	if err := slices.Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		t.Errorf("deleting slice %s: %v", name, err)
		return
	}
	awaitObjects(t, sliceWatch(slices, name), &unstructured.Unstructured{}, 20*time.Second,
		func(objs []any) bool { return len(objs) == 0 },
		func([]any) string { return fmt.Sprintf("slice %s still exists after delete", name) })
}

// sliceWatch lists and watches the one Slice named name.
func sliceWatch(slices dynamic.ResourceInterface, name string) cache.ListerWatcher {
	list := func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return slices.List(ctx, o) }
	return listWatch(list, slices.Watch, func(o *metav1.ListOptions) {
		o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
	})
}

// waitSliceState waits, with a watch, for the Ready reason and returns the
// slice; it fails the test after 20s.
func waitSliceState(t *testing.T, name, reason string) *unstructured.Unstructured {
	t.Helper()
	objs := awaitObjects(t, sliceWatch(testSlices(t), name), &unstructured.Unstructured{}, 20*time.Second,
		func(objs []any) bool {
			if len(objs) != 1 {
				return false
			}
			got, _ := slicecontroller.ReadyReason(objs[0].(*unstructured.Unstructured))
			return got == reason
		},
		func(objs []any) string {
			if len(objs) != 1 {
				return fmt.Sprintf("slice %s does not exist; want %s", name, reason)
			}
			got, msg := slicecontroller.ReadyReason(objs[0].(*unstructured.Unstructured))
			return fmt.Sprintf("slice %s is %s (%s); want %s", name, got, msg, reason)
		})
	return objs[0].(*unstructured.Unstructured)
}

func readyCondition(obj *unstructured.Unstructured) map[string]any {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == ConditionReady {
			return m
		}
	}
	return nil
}

func sliceLabelledNodes(t *testing.T, slice string) int {
	t.Helper()
	list, err := testKube(t).CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: wellknown.LabelSlice + "=" + slice})
	if err != nil {
		t.Fatal(err)
	}
	return len(list.Items)
}

// A 4x8x8 slice of four partitions goes SliceNotCreated → ACTIVATING →
// ACTIVE, labels its 64 nodes, and on deletion goes DEACTIVATING →
// INCOMPLETE → gone, removing the labels.
func TestSliceLifecycle(t *testing.T) {
	needSandbox(t)
	withFaults(t, Faults{SliceActivationDelayMs: 100})
	ids := partitionsOf(t, "tpu7x-reservation", "block-a", "sub-block-a1", "sub-block-a2", "sub-block-a3", "sub-block-a4")
	activation := holdDelays(t, DelaySliceActivation, "train-a")
	rec := createSlice(t, "train-a", "4x8x8", ids, nil)
	waitSliceState(t, "train-a", ReasonActivating)
	delay := activation.next(t)
	if _, ok := testSandbox.SliceMarkedActive("train-a"); ok || delay.For != 100*time.Millisecond {
		t.Errorf("marked ACTIVE: %v, with an activation delay of %s; want none while the fault's 100ms delay is held", ok, delay.For)
	}
	// The order of the marks on this process's monotonic clock: ACTIVE is
	// marked after the delay ended and before the test saw it.
	ended := time.Now()
	delay.end()
	obj := waitSliceState(t, "train-a", ReasonActive)
	seen := time.Now()
	if at, ok := testSandbox.SliceMarkedActive("train-a"); !ok || at.Before(ended) || at.After(seen) {
		t.Errorf("marked ACTIVE at %v (%v), want after its activation delay ended (%v) and before the test saw it (%v)", at, ok, ended, seen)
	}
	activation.none(t)
	cond := readyCondition(obj)
	if cond["status"] != "True" || cond["observedGeneration"] != obj.GetGeneration() {
		t.Errorf("Ready condition %v", cond)
	}
	if !slices.Contains(obj.GetFinalizers(), wellknown.SliceFinalizer) {
		t.Errorf("finalizers %v, want %s", obj.GetFinalizers(), wellknown.SliceFinalizer)
	}
	if n := sliceLabelledNodes(t, "train-a"); n != 64 {
		t.Errorf("%d nodes carry the slice label, want 64", n)
	}
	nodes := poolNodes(t, "sl-sub-block-a1")
	if nodes[0].Labels[wellknown.LabelSliceTopology] != "4x8x8" {
		t.Errorf("topology label %q", nodes[0].Labels[wellknown.LabelSliceTopology])
	}

	deleteSliceAndWait(t, "train-a")
	if _, ok := testSandbox.SliceMarkedActive("train-a"); ok {
		t.Error("a deleted slice keeps its ACTIVE time")
	}
	want := []string{ReasonSliceNotCreated, ReasonActivating, ReasonActive, ReasonDeactivating, ReasonIncomplete}
	if got := rec.seenUntil(t, ReasonIncomplete); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("states %v, want %v", got, want)
	}
	if n := sliceLabelledNodes(t, "train-a"); n != 0 {
		t.Errorf("%d nodes keep the slice label after deletion", n)
	}
	events, err := testKube(t).CoreV1().Events("default").List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=train-a"})
	if err != nil || len(events.Items) == 0 {
		t.Errorf("no events recorded for the slice: %v", err)
	}
}

// sliceEvents returns the reasons of the Events recorded for the slice
// with this UID, as type/reason, with their messages.
func sliceEvents(t *testing.T, uid types.UID) (reasons []string, messages map[string]string) {
	t.Helper()
	list, err := testKube(t).CoreV1().Events("default").List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.uid=" + string(uid)})
	if err != nil {
		t.Fatal(err)
	}
	messages = map[string]string{}
	for _, e := range list.Items {
		reasons = append(reasons, e.Type+"/"+e.Reason)
		messages[e.Reason] = e.Message
	}
	return reasons, messages
}

func count(values []string, v string) int {
	n := 0
	for _, x := range values {
		if x == v {
			n++
		}
	}
	return n
}
