package slicecontroller

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Start runs the controller on its informers: a new slice is formed (held
// ACTIVATING until the test ends its activation delay), a partition
// turning UNHEALTHY on its nodes fails it, and its deletion tears it down
// until it is gone. The test follows the slice with a watch and asserts
// the states it passed through, in order, and the Events.
func TestStartRunsTheLifecycle(t *testing.T) {
	t.Parallel()
	cloud := newFakeCloud()
	cloud.activation = 400 * time.Millisecond
	r := &rig{t: t, cloud: cloud, kube: kubefake.NewClientset(), dyn: newFakeSlices()}
	r.addPartition("pa", "4x4x4", healthy, "block-a")

	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	w, err := r.dyn.Resource(SliceGVR).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	states := make(chan string, 64) // each new state of the slice; "gone" once deleted
	go func() {
		last := "none"
		for ev := range w.ResultChan() {
			state := "gone"
			if ev.Type != watch.Deleted {
				u, ok := ev.Object.(*unstructured.Unstructured)
				if !ok {
					continue
				}
				state, _ = ReadyReason(u)
			}
			if state != last {
				states <- state
				last = state
			}
		}
	}()
	var seen []string
	awaitState := func(want string) {
		t.Helper()
		for {
			s := testsupport.Await(t, states, "the slice's next state on the way to "+want)
			seen = append(seen, s)
			if s == want {
				return
			}
		}
	}

	c := New(cloud, r.kube, r.dyn)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	r.createSlice("s", "4x4x4", false, "pa")
	awaitState(ReasonActivating)
	a := testsupport.Await(t, cloud.activations, "the slice's activation delay")
	if a.slice != "s" || a.delay != 400*time.Millisecond {
		t.Errorf("activation delay of %s for %s; want s for 400ms", a.slice, a.delay)
	}
	a.then()
	awaitState(ReasonActive)
	if _, ok := c.MarkedActive("s"); !ok {
		t.Error("the ACTIVE slice is not marked active")
	}
	r.wantSliceLabels("pa", "4x4x4", "s", "4x4x4")

	r.setPartitionState("pa", wellknown.PartitionUnhealthy)
	awaitState(ReasonFailed)
	r.deleteSlice()
	awaitState("gone")

	want := []string{"", ReasonSliceNotCreated, ReasonActivating, ReasonActive, ReasonDeactivating, ReasonFailed, ReasonDeactivating, ReasonIncomplete, "gone"}
	if !slices.Equal(seen, want) {
		t.Errorf("the slice went through %q; want %q", seen, want)
	}
	r.wantEvents("s Normal ACTIVE", "s Warning DEACTIVATING", "s Warning FAILED")
	if len(cloud.activations) != 0 {
		t.Errorf("%d more activation delay(s)", len(cloud.activations))
	}
}

// Only what can change a slice's state queues every slice again: a node's
// readiness, its slice label or a partition state label; not a heartbeat.
func TestNodeChanged(t *testing.T) {
	t.Parallel()
	node := func(ready corev1.ConditionStatus, labels map[string]string, heartbeat int64) *corev1.Node {
		return &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: "n", Labels: labels},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready,
				LastHeartbeatTime: metav1.Unix(heartbeat, 0)}}},
		}
	}
	base := map[string]string{wellknown.LabelPartitionState: healthy, "other": "a"}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for key, val := range base {
			m[key] = val
		}
		m[k] = v
		return m
	}
	old := node(corev1.ConditionTrue, base, 1)
	for _, tc := range []struct {
		name string
		obj  any
		want bool
	}{
		{"heartbeat", node(corev1.ConditionTrue, base, 2), false},
		{"another label", node(corev1.ConditionTrue, with("other", "b"), 1), false},
		{"readiness", node(corev1.ConditionFalse, base, 1), true},
		{"slice label", node(corev1.ConditionTrue, with(wellknown.LabelSlice, "s"), 1), true},
		{"4x4x4 state", node(corev1.ConditionTrue, with(wellknown.LabelPartitionState, wellknown.PartitionDegraded), 1), true},
		{"2x2x1 state", node(corev1.ConditionTrue, with("cloud.google.com/gke-tpu-partition-2x2x1-state", healthy), 1), true},
		{"not a node", "tombstone", true},
	} {
		queued := 0
		nodeChanged(old, tc.obj, func(any) { queued++ })
		if got := queued == 1; got != tc.want || queued > 1 {
			t.Errorf("%s: queued %d time(s); want queued %v", tc.name, queued, tc.want)
		}
	}
}

// The node cache indexes a node by the partition ID of each shape it has.
func TestPartitionIDs(t *testing.T) {
	t.Parallel()
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{
		"cloud.google.com/gke-tpu-partition-2x2x1-id": "q", wellknown.LabelPartitionID: "pa", "other": "x",
	}}}
	if ids, err := partitionIDs(n); err != nil || !slices.Equal(ids, []string{"q", "pa"}) {
		t.Errorf("ids %v, %v; want [q pa], smallest shape first", ids, err)
	}
	if ids, err := partitionIDs("not a node"); ids != nil || err != nil {
		t.Errorf("a non-node: %v, %v", ids, err)
	}
}
