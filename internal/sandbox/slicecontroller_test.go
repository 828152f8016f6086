package sandbox

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
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
		ids[i] = nodes[0].Labels[LabelPartitionID]
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
// after 20s.
func (r *sliceRecorder) seenUntil(t *testing.T, reason string) []string {
	t.Helper()
	deadline := time.After(20 * time.Second)
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
				reason, _ := readyReason(obj)
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
			got, _ := readyReason(objs[0].(*unstructured.Unstructured))
			return got == reason
		},
		func(objs []any) string {
			if len(objs) != 1 {
				return fmt.Sprintf("slice %s does not exist; want %s", name, reason)
			}
			got, msg := readyReason(objs[0].(*unstructured.Unstructured))
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
	list, err := testKube(t).CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: LabelSlice + "=" + slice})
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
	created := time.Now()
	rec := createSlice(t, "train-a", "4x8x8", ids, nil)
	obj := waitSliceState(t, "train-a", ReasonActive)
	seen := time.Now()
	if at, ok := testSandbox.SliceMarkedActive("train-a"); !ok || at.Before(created.Add(100*time.Millisecond)) || at.After(seen) {
		t.Errorf("marked ACTIVE at %v (%v), want after the 100ms activation delay from %v and before %v", at, ok, created, seen)
	}
	cond := readyCondition(obj)
	if cond["status"] != "True" || cond["observedGeneration"] != obj.GetGeneration() {
		t.Errorf("Ready condition %v", cond)
	}
	if !hasFinalizer(obj) {
		t.Errorf("finalizers %v, want %s", obj.GetFinalizers(), SliceFinalizer)
	}
	if n := sliceLabelledNodes(t, "train-a"); n != 64 {
		t.Errorf("%d nodes carry the slice label, want 64", n)
	}
	nodes := poolNodes(t, "sl-sub-block-a1")
	if nodes[0].Labels[LabelSliceTopology] != "4x8x8" {
		t.Errorf("topology label %q", nodes[0].Labels[LabelSliceTopology])
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

// Each documented SliceCreationFailed cause, with a message that says it.
// A partition count that does not match the topology is refused at
// admission before the controller sees it (TestSliceAdmissionRejects).
func TestSliceCreationFailedReasons(t *testing.T) {
	needSandbox(t)
	ids := partitionsOf(t, "tpu7x-reservation", "block-a", "sub-block-a1", "sub-block-a2")
	createSlice(t, "holder", "4x4x4", ids[:1], nil)
	waitSliceState(t, "holder", ReasonActive)

	cases := []struct {
		name, topo string
		ids        []string
		text       string
	}{
		{"missing-nodes", "4x4x4", []string{strings.Repeat("0", 32)}, "the nodes of partition 00000000000000000000000000000000 do not exist"},
		{"used-elsewhere", "4x4x8", ids, fmt.Sprintf("the nodes of partition %s are used by slice holder", ids[0])},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			createSlice(t, tc.name, tc.topo, tc.ids, nil)
			obj := waitSliceState(t, tc.name, ReasonSliceCreationFailed)
			if _, msg := readyReason(obj); !strings.Contains(msg, tc.text) {
				t.Errorf("message %q, want %q", msg, tc.text)
			}
		})
	}
}

// Partitions in different blocks or reservations fail after ACTIVATING.
func TestSliceFailedAcrossBlocksAndReservations(t *testing.T) {
	needSandbox(t)
	a := partitionsOf(t, "tpu7x-reservation", "block-a", "sub-block-a1")
	b := partitionsOf(t, "tpu7x-reservation", "block-b", "sub-block-b1")
	c := partitionsOf(t, "tpu7x-reservation-2", "block-c", "sub-block-c1")
	// One after the other: both use a[0], and a slice that is ACTIVATING
	// holds its partitions (a FAILED one does not).
	for _, tc := range []struct{ name, other, text string }{
		{"across-blocks", b[0], "the partitions are not in the same reservation block"},
		{"across-reservations", c[0], "the partitions are not in the same reservation"},
	} {
		createSlice(t, tc.name, "4x4x8", []string{a[0], tc.other}, nil)
		obj := waitSliceState(t, tc.name, ReasonFailed)
		if _, msg := readyReason(obj); !strings.Contains(msg, tc.text) {
			t.Errorf("%s: message %q, want %q", tc.name, msg, tc.text)
		}
	}
}

// With retry-on-failure, a slice whose partition is incomplete forms once
// the missing host is repaired.
func TestSliceRetryOnFailure(t *testing.T) {
	needSandbox(t)
	ids := partitionsOf(t, "tpu7x-reservation", "block-b", "sub-block-b3") // host 11 is unhealthy
	createSlice(t, "retrying", "4x4x4", ids, map[string]string{AnnotationRetryOnFailure: "true"})
	obj := waitSliceState(t, "retrying", ReasonSliceCreationFailed)
	if _, msg := readyReason(obj); !strings.Contains(msg, "is INCOMPLETE") {
		t.Errorf("message %q", msg)
	}
	if err := testSandbox.SetHostHealth(testContext(t), "tpu7x-reservation", "block-b", "sub-block-b3", 11, HostHealthy); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = testSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-b", "sub-block-b3", 11, HostUnhealthy)
	})
	waitSliceState(t, "retrying", ReasonActive)

	// Without the annotation, the failure is final.
	createSlice(t, "not-retrying", "4x4x4", []string{strings.Repeat("f", 32)}, nil)
	waitSliceState(t, "not-retrying", ReasonSliceCreationFailed)
}

// A formed slice follows its partitions' health.
func TestSliceFollowsPartitionHealth(t *testing.T) {
	needSandbox(t)
	ids := partitionsOf(t, "tpu7x-reservation", "block-a", "sub-block-a2")
	createSlice(t, "healthy", "4x4x4", ids, nil)
	waitSliceState(t, "healthy", ReasonActive)
	ctx := testContext(t)
	set := func(health string) {
		if err := testSandbox.SetHostHealth(ctx, "tpu7x-reservation", "block-a", "sub-block-a2", 7, health); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { set(HostHealthy) })
	set(HostDegraded)
	obj := waitSliceState(t, "healthy", ReasonActiveDegraded)
	if readyCondition(obj)["status"] != "True" {
		t.Errorf("ACTIVE_DEGRADED must be usable (Ready True): %v", readyCondition(obj))
	}
	set(HostHealthy)
	waitSliceState(t, "healthy", ReasonActive)
	set(HostUnhealthy)
	waitSliceState(t, "healthy", ReasonFailed)
}

// Injected formation failures and activation delay.
func TestSliceFormationFaults(t *testing.T) {
	needSandbox(t)
	ids := partitionsOf(t, "tpu7x-reservation", "block-a", "sub-block-a3")
	withFaults(t, Faults{FailSliceFormations: 1})
	createSlice(t, "doomed", "4x4x4", ids, nil)
	obj := waitSliceState(t, "doomed", ReasonFailed)
	if _, msg := readyReason(obj); !strings.Contains(msg, "could not be formed") {
		t.Errorf("message %q", msg)
	}
	deleteSliceAndWait(t, "doomed")

	withFaults(t, Faults{SliceActivationDelayMs: 400})
	rec := createSlice(t, "slow", "4x4x4", ids, nil)
	waitSliceState(t, "slow", ReasonActivating)
	started := time.Now()
	waitSliceState(t, "slow", ReasonActive)
	if got := rec.seenUntil(t, ReasonActive); len(got) < 3 || got[1] != ReasonActivating {
		t.Errorf("states %v, want ACTIVATING before ACTIVE", got)
	}
	// The injected delay holds the slice in ACTIVATING (a lower bound: it
	// checks the fault works, not the speed of anything).
	if d := time.Since(started); d < 300*time.Millisecond {
		t.Errorf("the slice left ACTIVATING after %v, with a 400ms activation delay", d)
	}
}
