package slicecontroller

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

const healthy = wellknown.PartitionHealthy

// updates counts the controller's writes of Slices (updates of the object
// and of its status).
func (r *rig) updates() int {
	n := 0
	for _, a := range r.dyn.Actions() {
		if a.GetVerb() == "update" {
			n++
		}
	}
	return n
}

// wantStates checks the states a slice went through.
func wantStates(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("states %v; want %v", got, want)
	}
}

// wantCondition checks the status of slice s's condition of the type.
func (r *rig) wantCondition(typ, status string) {
	r.t.Helper()
	conds, _, _ := unstructured.NestedSlice(r.slice("s").Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == typ {
			if m["status"] != status {
				r.t.Errorf("condition %s is %v; want %s", typ, m["status"], status)
			}
			return
		}
	}
	r.t.Errorf("no condition %s in %v", typ, conds)
}

// A slice whose partition is formable takes the finalizer, then passes
// through SliceNotCreated and ACTIVATING to ACTIVE, with the slice labels
// on its nodes; only the transition to ACTIVE is announced. Once ACTIVE
// and healthy, a reconcile writes nothing.
func TestFormationToActive(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.addPartition("pa", "4x4x4", healthy, "block-a")
	r.createSlice("s", "4x4x4", false, "pa")

	r.step("s")
	if obj := r.slice("s"); !hasFinalizer(obj) || r.state("s") != "" {
		t.Fatalf("after the first step: finalizers %v, state %q; want the slice finalizer and no state yet", obj.GetFinalizers(), r.state("s"))
	}
	wantStates(t, r.stepUntil("s", ReasonActive), ReasonSliceNotCreated, ReasonActivating, ReasonActive)
	r.wantCondition(ConditionReady, "True")
	r.wantCondition(ConditionCreationFailed, "False")
	r.wantSliceLabels("pa", "4x4x4", "s", "4x4x4")
	r.wantEvents("s Normal ACTIVE")
	if _, ok := r.c.MarkedActive("s"); !ok {
		t.Error("the slice is not marked active")
	}
	r.sync()
	if got := r.c.NodeLabels("node-pa-00")[wellknown.LabelSlice]; got != "s" {
		t.Errorf("the controller's cache has node-pa-00 in slice %q; want s", got)
	}
	if r.c.NodeLabels("no-such-node") != nil {
		t.Error("labels of a node the cache does not hold")
	}

	before := r.updates()
	if after := r.step("s"); after != 0 || r.updates() != before {
		t.Errorf("a reconcile of the healthy ACTIVE slice wrote %d time(s), asked to look again after %s", r.updates()-before, after)
	}
	r.wantEvents("s Normal ACTIVE")
}

// A slice stays ACTIVATING for the activation delay the cloud gives: the
// controller asks the cloud once, reconciles meanwhile write nothing, a
// reconcile of the slice as a trailing cache still holds it starts no
// second delay, and the delay's end queues the slice, which then forms.
func TestActivationDelayHoldsTheSlice(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.cloud.activation = 400 * time.Millisecond
	r.addPartition("pa", "4x4x4", healthy, "block-a")
	r.createSlice("s", "4x4x4", false, "pa")
	r.step("s") // the finalizer
	r.step("s") // SliceNotCreated
	notCreated := r.slice("s")
	r.step("s")
	if r.state("s") != ReasonActivating {
		t.Fatalf("state %s; want ACTIVATING", r.state("s"))
	}
	a := testsupport.Await(t, r.cloud.activations, "the slice's activation delay")
	if a.slice != "s" || a.delay != 400*time.Millisecond {
		t.Errorf("activation delay of %s for %s; want s for 400ms", a.slice, a.delay)
	}

	before := r.updates()
	r.step("s")
	if r.state("s") != ReasonActivating || r.updates() != before {
		t.Errorf("a reconcile while the delay runs: state %s after %d write(s); want ACTIVATING and none", r.state("s"), r.updates()-before)
	}
	// The slice as a cache that trailed the write of ACTIVATING holds it.
	if err := r.c.sliceStore.Update(notCreated); err != nil {
		t.Fatal(err)
	}
	if _, err := r.c.reconcile(context.Background(), "s"); err != nil {
		t.Fatal(err)
	}
	if len(r.cloud.activations) != 0 {
		t.Errorf("%d more activation delay(s); want the one the slice has", len(r.cloud.activations))
	}

	if n := r.c.queue.Len(); n != 0 {
		t.Fatalf("%d key(s) queued before the delay ended", n)
	}
	a.then()
	if n := r.c.queue.Len(); n != 1 {
		t.Fatalf("%d key(s) queued when the delay ended; want the slice's", n)
	}
	key, _ := r.c.queue.Get()
	r.c.queue.Done(key)
	if key != "s" {
		t.Errorf("queued %q; want s", key)
	}
	wantStates(t, r.stepUntil("s", ReasonActive), ReasonActive)
	r.wantEvents("s Normal ACTIVE")
}

// The documented SliceCreationFailed rules: each problem fails the slice
// with its message and one Warning, and a slice that does not ask to be
// retried stays failed, with no more writes.
func TestCreationFailedReasons(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		topology   string
		partitions []string
		setUp      func(r *rig)
		want       string
	}{
		{"not a tpu7x topology", "4x4", []string{"pa"}, nil, `topology "4x4"`},
		{"topology and partitions differ", "4x4x8", []string{"pa"}, nil,
			"the topology does not match the partitions: spec.partitionIds has 1 IDs"},
		{"no nodes", "4x4x4", []string{"px"}, nil, "the nodes of partition px do not exist"},
		{"partition of another shape", "2x2x1", []string{"pa"}, nil,
			"partition pa is not a 2x2x1 partition: a 2x2x1 slice is formed from the cloud.google.com/gke-tpu-partition-2x2x1-id label of its nodes"},
		{"partition unhealthy", "4x4x4", []string{"pa"}, func(r *rig) { r.setPartitionState("pa", wellknown.PartitionUnhealthy) },
			"partition pa is UNHEALTHY: not all of its nodes are ready (16 of 16 exist)"},
		{"partition incomplete", "4x4x4", []string{"pa"}, func(r *rig) { r.setPartitionState("pa", wellknown.PartitionIncomplete) },
			"partition pa is INCOMPLETE"},
		{"node not Ready", "4x4x4", []string{"pa"}, func(r *rig) { r.setReady("node-pa-03", false) },
			"node node-pa-03 of partition pa is not Ready"},
		{"nodes labelled for another slice", "4x4x4", []string{"pa"}, func(r *rig) { r.labelNode("node-pa-05", wellknown.LabelSlice, "other") },
			"the nodes of partition pa are used by slice other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.addPartition("pa", "4x4x4", healthy, "block-a")
			if tc.setUp != nil {
				tc.setUp(r)
			}
			r.createSlice("s", tc.topology, false, tc.partitions...)
			r.step("s") // the finalizer
			wantStates(t, r.stepUntil("s", ReasonSliceCreationFailed), ReasonSliceNotCreated, ReasonSliceCreationFailed)
			if msg := r.message("s"); !strings.Contains(msg, tc.want) {
				t.Errorf("message %q; want it to say %q", msg, tc.want)
			}
			r.wantCondition(ConditionCreationFailed, "True")
			r.wantCondition(ConditionReady, "False")
			r.wantEvents("s Warning SliceCreationFailed")
			r.wantNoNodeOfS()

			before := r.updates()
			if after := r.step("s"); after != 0 || r.updates() != before {
				t.Errorf("a failed slice without retry: %d write(s), look again after %s; want none", r.updates()-before, after)
			}
		})
	}
}

// A partition in a live slice (ACTIVATING or formed) is in use: a second
// slice over it fails, and so does one over a smaller partition nested in
// it (the overlap is named); a deleted slice holds nothing.
func TestPartitionInUse(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.addPartition("pa", "4x4x4", healthy, "block-a")
	r.labelNode("node-pa-00", "cloud.google.com/gke-tpu-partition-2x2x1-id", "q")
	r.labelNode("node-pa-00", "cloud.google.com/gke-tpu-partition-2x2x1-state", healthy)
	r.createSlice("a", "4x4x4", false, "pa")
	r.step("a")
	r.stepUntil("a", ReasonActive)

	r.createSlice("b", "4x4x4", false, "pa")
	r.step("b")
	r.stepUntil("b", ReasonSliceCreationFailed)
	if msg := r.message("b"); msg != "the nodes of partition pa are used by slice a" {
		t.Errorf("b: %q", msg)
	}
	r.createSlice("c", "2x2x1", false, "q")
	r.step("c")
	r.stepUntil("c", ReasonSliceCreationFailed)
	if msg := r.message("c"); msg != "the nodes of partition q are used by slice a (its partition pa overlaps this one)" {
		t.Errorf("c: %q", msg)
	}
	r.wantEvents("a Normal ACTIVE", "b Warning SliceCreationFailed", "c Warning SliceCreationFailed")
}

// A slice that asks to be retried (the retry-on-failure annotation) is
// checked again after the retry interval: the same problem writes and
// announces nothing more, a new problem is announced, and once the
// prerequisites are met it forms, the retry announced as ACTIVATING.
func TestRetryOnFailure(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.addPartition("pa", "4x4x4", healthy, "block-a")
	r.setReady("node-pa-11", false)
	r.createSlice("s", "4x4x4", true, "pa")
	r.step("s") // the finalizer
	r.step("s") // SliceNotCreated
	if after := r.step("s"); after != sliceRetryInterval || r.state("s") != ReasonSliceCreationFailed {
		t.Fatalf("state %s, look again after %s; want SliceCreationFailed after the retry interval", r.state("s"), after)
	}
	before := r.updates()
	if after := r.step("s"); after != sliceRetryInterval || r.updates() != before {
		t.Errorf("the same problem again: %d write(s), look again after %s; want none, after the retry interval", r.updates()-before, after)
	}

	r.setReady("node-pa-11", true)
	r.setPartitionState("pa", wellknown.PartitionIncomplete)
	r.step("s")
	if msg := r.message("s"); !strings.HasPrefix(msg, "partition pa is INCOMPLETE") {
		t.Errorf("message after the problem changed: %q", msg)
	}

	r.setPartitionState("pa", healthy)
	wantStates(t, r.stepUntil("s", ReasonActive), ReasonActivating, ReasonActive)
	r.wantEvents("s Warning SliceCreationFailed", "s Warning SliceCreationFailed", "s Normal ACTIVATING", "s Normal ACTIVE")
	if e := r.events()[2]; !strings.Contains(e.message, "(retry)") {
		t.Errorf("the retry's event says %q", e.message)
	}
}

// Formation fails (FAILED, final) when the partitions span reservations
// or blocks, or when the cloud injects a formation failure, which it
// uses up; the nodes get no slice labels.
func TestFormationFailures(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		setUp func(r *rig)
		want  string
	}{
		{"blocks", func(r *rig) { r.addPartition("pb", "4x4x4", healthy, "block-b") },
			"the partitions are not in the same reservation block: res/block-a, res/block-b"},
		{"reservations", func(r *rig) {
			r.addPartition("pb", "4x4x4", healthy, "block-a")
			r.cloud.place("pb", "res-2", "block-a")
		}, "the partitions are not in the same reservation: res, res-2"},
		{"injected", func(r *rig) {
			r.addPartition("pb", "4x4x4", healthy, "block-a")
			r.cloud.formationFailures = 1
		}, "the ICI links of the slice could not be formed (sandbox fault)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			r.addPartition("pa", "4x4x4", healthy, "block-a")
			tc.setUp(r)
			r.createSlice("s", "4x4x8", false, "pa", "pb")
			r.step("s")
			wantStates(t, r.stepUntil("s", ReasonFailed), ReasonSliceNotCreated, ReasonActivating, ReasonFailed)
			if msg := r.message("s"); msg != tc.want {
				t.Errorf("message %q; want %q", msg, tc.want)
			}
			r.wantEvents("s Warning FAILED")
			r.wantSliceLabels("pa", "4x4x4", "", "")
			if r.cloud.formationFailures != 0 {
				t.Errorf("%d injected failure(s) left; want it used up", r.cloud.formationFailures)
			}
			before := r.updates()
			if r.step("s"); r.updates() != before {
				t.Error("a FAILED slice was written again")
			}
		})
	}
}

// A 4x4x4 partition that is DEGRADED can form a slice, which is then
// ACTIVE_DEGRADED and names it; a sub-slice partition (its own shape)
// cannot be DEGRADED and formed. A sub-slice is formed from, and
// labels, the nodes of its own partition.
func TestFormationOfPartitionShapes(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.addPartition("pa", "4x4x4", wellknown.PartitionDegraded, "block-a")
	r.createSlice("s", "4x4x4", false, "pa")
	r.step("s")
	r.stepUntil("s", ReasonActiveDegraded)
	if msg := r.message("s"); msg != "The slice is usable; degraded partitions: pa" {
		t.Errorf("message %q", msg)
	}
	r.wantCondition(ConditionReady, "True")

	r.addPartition("q2", "2x2x2", wellknown.PartitionDegraded, "block-b")
	r.createSlice("sub", "2x2x2", false, "q2")
	r.step("sub")
	r.stepUntil("sub", ReasonSliceCreationFailed)
	if msg := r.message("sub"); !strings.HasPrefix(msg, "partition q2 is DEGRADED") {
		t.Errorf("a DEGRADED sub-slice partition: %q", msg)
	}

	r.addPartition("q4", "2x2x4", healthy, "block-b")
	r.createSlice("sub4", "2x2x4", false, "q4")
	r.step("sub4")
	r.stepUntil("sub4", ReasonActive)
	r.wantSliceLabels("q4", "2x2x4", "sub4", "2x2x4")
	r.wantEvents("s Normal ACTIVE_DEGRADED", "sub Warning SliceCreationFailed", "sub4 Normal ACTIVE")
}
