package slicecheck

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The check's reconciliation of one Workload over fake clients: the
// Workload, its AdmissionCheck and the Slices are put in the check's
// stores as its informers would; what it writes (status patches, Slices
// made and deleted) and the events it records are read back. Time is the
// harness's clock, moved by hand.

const (
	testNS, testWL, testCheck = "team", "wl", "tpu7x"
)

type harness struct {
	t       *testing.T
	c       *Check
	dyn     *dynamicfake.FakeDynamicClient
	events  *record.FakeRecorder
	now     time.Time
	patches []map[string]any // status applies to Workloads, in order
	acPatch []map[string]any // status applies to AdmissionChecks
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, events: record.NewFakeRecorder(100), now: time.Date(2026, 11, 29, 1, 0, 0, 0, time.UTC)}
	h.dyn = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		WorkloadGVR: "WorkloadList", AdmissionCheckGVR: "AdmissionCheckList", slicecontroller.SliceGVR: "SliceList",
	})
	h.dyn.PrependReactor("patch", "*", func(a clienttesting.Action) (bool, runtime.Object, error) {
		pa, _ := a.(clienttesting.PatchAction)
		if pa.GetPatchType() != types.ApplyPatchType {
			return false, nil, nil
		}
		var m map[string]any
		if err := json.Unmarshal(pa.GetPatch(), &m); err != nil {
			return true, nil, err
		}
		if pa.GetResource() == AdmissionCheckGVR {
			h.acPatch = append(h.acPatch, m)
		} else {
			h.patches = append(h.patches, m)
		}
		return true, &unstructured.Unstructured{Object: m}, nil
	})
	labels := map[string]map[string]string{}
	for _, p := range []string{"p1", "p2", "p3"} {
		for i := range 2 {
			labels["n-"+p+"-"+string(rune('0'+i))] = map[string]string{wellknown.LabelPartitionID: p}
		}
	}
	h.c = New(kubefake.NewClientset(), h.dyn, func(n string) map[string]string { return labels[n] }, log.New(io.Discard, "", 0), Options{
		ActivationTimeout: time.Minute, RetryDelay: 2 * time.Second, Now: func() time.Time { return h.now }, Events: h.events,
	})
	check := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck",
		"metadata": map[string]any{"name": testCheck}, "spec": map[string]any{"controllerName": KueueSliceController},
	}}
	if err := h.c.checks.Add(check); err != nil {
		t.Fatal(err)
	}
	return h
}

// workload puts a Workload of a Job in the store: one pod set "main" of
// groups sub-groups on slices of topo, assigned the nodes of partitions
// (two per partition), the check in state with the conditions conds.
func (h *harness) workload(topo string, groups int, partitions []string, state string, conds ...map[string]any) {
	h.t.Helper()
	var roots []any
	for _, p := range partitions {
		roots = append(roots, p+"-0", p+"-1")
	}
	conditions := []any{map[string]any{"type": "QuotaReserved", "status": "True"}}
	for _, c := range conds {
		conditions = append(conditions, c)
	}
	wl := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
		"metadata": map[string]any{
			"name": testWL, "namespace": testNS, "uid": "wl-uid", "finalizers": []any{sliceCheckFinalizer},
			"ownerReferences": []any{map[string]any{"apiVersion": "batch/v1", "kind": "Job", "name": "train", "uid": "job-uid", "controller": true}},
		},
		"spec": map[string]any{"podSets": []any{map[string]any{
			"name": "main", "count": int64(16),
			"template": map[string]any{
				"metadata": map[string]any{"annotations": map[string]any{wellknown.AnnotationSliceTopology: topo}},
				"spec":     map[string]any{"nodeSelector": map[string]any{wellknown.LabelAccelerator: "tpu7x"}},
			},
			"topologyRequest": map[string]any{"subGroupCount": int64(groups)},
		}}},
		"status": map[string]any{
			"conditions": conditions,
			"admission": map[string]any{"clusterQueue": "cq", "podSetAssignments": []any{map[string]any{
				"name": "main",
				"topologyAssignment": map[string]any{"levels": []any{wellknown.LabelHostname}, "slices": []any{map[string]any{
					"domainCount":    int64(len(roots)),
					"valuesPerLevel": []any{map[string]any{"individual": map[string]any{"prefix": "n-", "roots": roots}}},
					"podCounts":      map[string]any{"universal": int64(1)},
				}}},
			}}},
			"admissionChecks": []any{map[string]any{"name": testCheck, "state": state, "message": "", "lastTransitionTime": "2026-11-29T00:00:00Z"}},
		},
	}}
	if err := h.c.workloads.Update(wl); err != nil {
		h.t.Fatal(err)
	}
}

// slice puts a Slice of the Workload in the store: sub-group index on
// partitions, made at created, with a Ready condition of status and
// reason since since (none when status is ""), deleting when gone.
func (h *harness) slice(index int, partitions []string, created time.Time, status, reason, message string, since time.Time, gone bool) {
	h.t.Helper()
	ids := make([]any, len(partitions))
	for i, p := range partitions {
		ids[i] = p
	}
	s := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "accelerator.gke.io/v1beta1", "kind": "Slice",
		"metadata": map[string]any{
			"name": SliceName(testNS, testWL, "main", index), "uid": "slice-" + string(rune('0'+index)),
			"creationTimestamp": created.UTC().Format(time.RFC3339),
			"annotations": map[string]any{
				wellknown.AnnotationOwnerWorkloadNamespace: testNS, wellknown.AnnotationOwnerWorkloadName: testWL, wellknown.AnnotationOwnerPodSet: "main",
			},
		},
		"spec": map[string]any{"type": "tpu7x", "topology": "4x4x4", "partitionIds": ids},
	}}
	if status != "" {
		s.Object["status"] = map[string]any{"conditions": []any{map[string]any{
			"type": slicecontroller.ConditionReady, "status": status, "reason": reason, "message": message,
			"lastTransitionTime": since.UTC().Format(time.RFC3339),
		}}}
	}
	if gone {
		ts := metav1.NewTime(h.now)
		s.SetDeletionTimestamp(&ts)
	}
	if err := h.c.slices.Update(s); err != nil {
		h.t.Fatal(err)
	}
}

// other puts a Slice of another Workload holding partitions in the store.
func (h *harness) other(name string, partitions []string, reason string, gone bool) {
	h.t.Helper()
	ids := make([]any, len(partitions))
	for i, p := range partitions {
		ids[i] = p
	}
	s := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "accelerator.gke.io/v1beta1", "kind": "Slice",
		"metadata": map[string]any{"name": name, "annotations": map[string]any{wellknown.AnnotationOwnerWorkloadNamespace: "x", wellknown.AnnotationOwnerWorkloadName: "y"}},
		"spec":     map[string]any{"type": "tpu7x", "topology": "4x4x4", "partitionIds": ids},
		"status": map[string]any{"conditions": []any{map[string]any{
			"type": slicecontroller.ConditionReady, "status": "False", "reason": reason, "lastTransitionTime": h.now.Format(time.RFC3339),
		}}},
	}}
	if gone {
		ts := metav1.NewTime(h.now)
		s.SetDeletionTimestamp(&ts)
	}
	if err := h.c.slices.Add(s); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) reconcile() time.Duration {
	h.t.Helper()
	after, err := h.c.reconcile(context.Background(), testNS+"/"+testWL)
	if err != nil {
		h.t.Fatalf("reconcile: %v", err)
	}
	return after
}

// check is the check's entry the last status apply wrote.
func (h *harness) check() map[string]any {
	h.t.Helper()
	if len(h.patches) == 0 {
		h.t.Fatal("the check wrote no status")
	}
	entries, _, _ := unstructured.NestedSlice(h.patches[len(h.patches)-1], "status", "admissionChecks")
	if len(entries) != 1 {
		h.t.Fatalf("last status apply %v: want one admission check", h.patches[len(h.patches)-1])
	}
	m, _ := entries[0].(map[string]any)
	return m
}

// failure is the TPUSliceFailure condition the last status apply wrote,
// or nil.
func (h *harness) failure() map[string]any {
	conds, _, _ := unstructured.NestedSlice(h.patches[len(h.patches)-1], "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == ConditionSliceFailure {
			return m
		}
	}
	return nil
}

// recorded are the events recorded so far ("Type Reason Message").
func (h *harness) recorded() []string {
	var out []string
	for {
		select {
		case e := <-h.events.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// sliceActions are the names of the Slices created, or deleted.
func (h *harness) sliceActions(verb string) []string {
	var out []string
	for _, a := range h.dyn.Actions() {
		if a.GetVerb() != verb || a.GetResource() != slicecontroller.SliceGVR {
			continue
		}
		switch act := a.(type) {
		case clienttesting.CreateAction:
			out = append(out, act.GetObject().(*unstructured.Unstructured).GetName())
		case clienttesting.DeleteAction:
			out = append(out, act.GetName())
		}
	}
	return out
}

func sliceName(i int) string { return SliceName(testNS, testWL, "main", i) }

// A Workload assigned two 4x4x4 partitions in two sub-groups: the check
// makes one Slice per sub-group on its partition (event SlicesCreated),
// keeps the check Pending while they form, counting them by state in its
// fixed order (a Slice whose Ready condition is not ACTIVE counts as
// ACTIVATING), and turns it Ready once both are ACTIVE (event
// AdmissionCheckUpdated).
func TestCheckFormsSlices(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.workload("4x4x4", 2, []string{"p1", "p2"}, "Pending")
	if after := h.reconcile(); after == 0 {
		t.Error("Slices forming: no look again; want one (to notice STALE Slices)")
	}
	if got := h.sliceActions("create"); !slices.Equal(got, []string{sliceName(0), sliceName(1)}) {
		t.Errorf("created %v", got)
	}
	want := `Normal SlicesCreated The Slices "team-wl-main-0", "team-wl-main-1" have been created`
	if got := h.recorded(); !slices.Equal(got, []string{want}) {
		t.Errorf("events %q; want %q", got, want)
	}
	if c := h.check(); c["state"] != "Pending" || c["message"] != "Slices are in states: 2 CREATED" {
		t.Errorf("check %v; want Pending, Slices are in states: 2 CREATED", c)
	}

	h.slice(0, []string{"p1"}, h.now, "True", "ACTIVE", "", h.now, false)
	h.slice(1, []string{"p2"}, h.now, "False", "ACTIVATING", "", h.now, false)
	h.reconcile()
	if c := h.check(); c["state"] != "Pending" || c["message"] != "Slices are in states: 1 ACTIVATING, 1 ACTIVE" {
		t.Errorf("check %v; want Pending, 1 ACTIVATING, 1 ACTIVE", c)
	}
	h.slice(1, []string{"p2"}, h.now, "False", "INCOMPLETE", "", h.now, false)
	h.workload("4x4x4", 2, []string{"p1", "p2"}, "Pending")
	h.reconcile()
	if c := h.check(); c["message"] != "Slices are in states: 1 ACTIVATING, 1 ACTIVE" {
		t.Errorf("an INCOMPLETE Slice: check %v; want it counted ACTIVATING", c)
	}

	h.slice(1, []string{"p2"}, h.now, "True", "ACTIVE", "", h.now, false)
	if after := h.reconcile(); after != 0 {
		t.Errorf("Ready: look again after %s; want not", after)
	}
	c := h.check()
	if c["state"] != "Ready" || c["message"] != "Slices are in states: 2 ACTIVE" || !strings.Contains(jsonOf(c["podSetUpdates"]), `"cloud.google.com/gke-tpu-topology":"4x4x4"`) {
		t.Errorf("check %v; want Ready, 2 ACTIVE, pods pinned to the topology", c)
	}
	want = `Normal AdmissionCheckUpdated Admission check "tpu7x" updated state from "Pending" to "Ready"`
	if got := h.recorded(); !slices.Equal(got, []string{want}) {
		t.Errorf("events %q; want %q", got, want)
	}
	if h.failure() != nil {
		t.Errorf("TPUSliceFailure %v on a Ready check", h.failure())
	}
}

// A Slice of a Ready Workload is deleted: the check evicts it (Retry,
// "Slice has been deleted", requeued after the retry delay, TPUSliceFailure
// Deletion), with no event, and deletes the other Slices.
func TestCheckReadyLosesSlice(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.workload("4x4x4", 2, []string{"p1", "p2"}, "Ready")
	h.slice(0, []string{"p1"}, h.now, "True", "ACTIVE", "", h.now, true)
	h.slice(1, []string{"p2"}, h.now, "True", "ACTIVE", "", h.now, false)
	h.reconcile()
	c := h.check()
	if c["state"] != "Retry" || c["message"] != "Slice has been deleted" || c["requeueAfterSeconds"] != float64(2) {
		t.Errorf("check %v; want Retry, Slice has been deleted, requeued after 2 s", c)
	}
	if f := h.failure(); f["status"] != "True" || f["reason"] != "Deletion" || f["message"] != "Slice has been deleted" {
		t.Errorf("TPUSliceFailure %v; want True, Deletion, Slice has been deleted", f)
	}
	if got := h.sliceActions("delete"); !slices.Equal(got, []string{sliceName(1)}) {
		t.Errorf("deleted %v; want the other Slice", got)
	}
	// As the controller's eviction: no event of its own (Kueue records
	// the eviction).
	if got := h.recorded(); len(got) != 0 {
		t.Errorf("events %q; want none", got)
	}
}

// Slices that do not turn ACTIVE within the activation timeout (one with
// no Ready condition since it was made, one ACTIVATING since) are STALE:
// deleted while the check stays Pending, with no eviction; once gone,
// they are made again under the same names.
func TestCheckStaleSlicesMadeAgain(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.workload("4x4x4", 2, []string{"p1", "p2"}, "Pending")
	made := h.now
	h.slice(0, []string{"p1"}, made, "", "", "", made, false)
	h.slice(1, []string{"p2"}, made, "False", "ACTIVATING", "", made.Add(10*time.Second), false)

	h.now = made.Add(59 * time.Second)
	h.reconcile()
	if c := h.check(); c["state"] != "Pending" || c["message"] != "Slices are in states: 1 CREATED, 1 ACTIVATING" {
		t.Errorf("before the timeout: check %v", c)
	}
	h.now = made.Add(70 * time.Second) // 70 s since made, 60 s since ACTIVATING
	h.reconcile()
	if c := h.check(); c["state"] != "Pending" || c["message"] != "Slices are in states: 2 STALE" {
		t.Errorf("after the timeout: check %v; want Pending, 2 STALE", c)
	}
	if h.failure() != nil {
		t.Errorf("TPUSliceFailure %v; want no eviction", h.failure())
	}
	if got := h.sliceActions("delete"); !slices.Equal(got, []string{sliceName(0), sliceName(1)}) {
		t.Errorf("deleted %v; want both STALE Slices", got)
	}

	// Their deletion seen, then their going: made again, same names.
	h.slice(0, []string{"p1"}, made, "", "", "", made, true)
	h.slice(1, []string{"p2"}, made, "False", "ACTIVATING", "", made, true)
	h.reconcile()
	if got := h.sliceActions("create"); len(got) != 0 {
		t.Errorf("created %v while the STALE Slices are being deleted", got)
	}
	for _, i := range []int{0, 1} {
		if err := h.c.slices.Delete(&unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": sliceName(i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	h.reconcile()
	if got := h.sliceActions("create"); !slices.Equal(got, []string{sliceName(0), sliceName(1)}) {
		t.Errorf("made again %v; want the same names", got)
	}
	if c := h.check(); c["state"] != "Pending" {
		t.Errorf("check %v; want Pending", c)
	}
}

// A Slice that FAILED evicts the Workload (RuntimeFailure), its message
// after the states; the Slices are deleted.
func TestCheckFailedSliceEvicts(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.workload("4x4x4", 2, []string{"p1", "p2"}, "Pending")
	h.slice(0, []string{"p1"}, h.now, "True", "ACTIVE", "", h.now, false)
	h.slice(1, []string{"p2"}, h.now, "False", "FAILED", "the slice's ICI links are down", h.now, false)
	h.reconcile()
	msg := "Slices are in states: 1 ACTIVE, 1 FAILED. Errors: team-wl-main-1: the slice's ICI links are down"
	if c := h.check(); c["state"] != "Retry" || c["message"] != msg {
		t.Errorf("check %v; want Retry, %q", c, msg)
	}
	if f := h.failure(); f["status"] != "True" || f["reason"] != "RuntimeFailure" || f["message"] != msg {
		t.Errorf("TPUSliceFailure %v; want True, RuntimeFailure", f)
	}
	if got := h.sliceActions("delete"); !slices.Equal(got, []string{sliceName(0), sliceName(1)}) {
		t.Errorf("deleted %v; want both", got)
	}
	want := `Normal AdmissionCheckUpdated Admission check "tpu7x" updated state from "Pending" to "Retry"`
	if got := h.recorded(); !slices.Equal(got, []string{want}) {
		t.Errorf("events %q; want %q", got, want)
	}
}

// Partitions held by other Slices (a FAILED one, one being deleted) and a
// Slice given fewer partitions than its topology has: the check makes no
// Slice and evicts the Workload (ConfigurationFailure) with the
// controller's words.
func TestCheckConfigurationFailure(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.workload("4x4x4", 2, []string{"p1", "p2"}, "Pending")
	h.other("other-failed", []string{"p1"}, "FAILED", false)
	h.other("other-going", []string{"p2"}, "ACTIVE", true)
	h.reconcile()
	msg := `partition IDs ["p1 (used by other-failed)" "p2 (used by other-going)"] are already used by existing Slices`
	if c := h.check(); c["state"] != "Retry" || c["message"] != msg {
		t.Errorf("check %v; want Retry, %q", c, msg)
	}
	if f := h.failure(); f["reason"] != "ConfigurationFailure" || f["message"] != msg {
		t.Errorf("TPUSliceFailure %v; want ConfigurationFailure", f)
	}
	if got := h.sliceActions("create"); len(got) != 0 {
		t.Errorf("created %v", got)
	}
	if got := h.recorded(); len(got) != 0 {
		t.Errorf("events %q; want none (as the controller's eviction)", got)
	}

	h = newHarness(t)
	h.workload("4x4x8", 1, []string{"p1"}, "Pending")
	h.reconcile()
	msg = "incorrect number of partitions for slices: [team-wl-main-0]"
	if c := h.check(); c["state"] != "Retry" || c["message"] != msg {
		t.Errorf("4x4x8 on one partition: check %v; want Retry, %q", c, msg)
	}
	if f := h.failure(); f["reason"] != "ConfigurationFailure" {
		t.Errorf("TPUSliceFailure %v; want ConfigurationFailure", f)
	}
}

// Once Kueue has put the check back to Pending after an eviction, the
// TPUSliceFailure condition turns False and says what it was; the status
// write after that names none, so that the server-side apply takes the
// condition away, as the open-source controller's is seen to go once its
// Slices form again.
func TestCheckFailureConditionClearsThenGoes(t *testing.T) {
	t.Parallel()
	condition := func(status, message string) map[string]any {
		return map[string]any{"type": ConditionSliceFailure, "status": status, "reason": "Deletion", "message": message, "lastTransitionTime": "2026-11-29T00:00:00Z"}
	}
	for _, tc := range []struct {
		name       string
		have, want map[string]any
	}{
		{"clears", condition("True", "Slice has been deleted"), condition("False", "Previously: Slice has been deleted")},
		{"goes", condition("False", "Previously: Slice has been deleted"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			h.workload("4x4x4", 1, []string{"p1"}, "Pending", tc.have)
			h.reconcile()
			if len(h.patches) == 0 {
				t.Fatal("the check wrote no status")
			}
			got := h.failure()
			if tc.want == nil {
				if got != nil {
					t.Errorf("TPUSliceFailure %v in the status write; want none (the apply removes it)", got)
				}
				return
			}
			for _, k := range []string{"type", "status", "reason", "message"} {
				if got[k] != tc.want[k] {
					t.Errorf("TPUSliceFailure %v; want %v", got, tc.want)
					break
				}
			}
		})
	}
}

// The check marks its AdmissionChecks Active with the controller's words.
func TestCheckActivatesAdmissionCheck(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if err := h.c.activateCheck(context.Background(), testCheck); err != nil {
		t.Fatal(err)
	}
	if len(h.acPatch) != 1 || !strings.Contains(jsonOf(h.acPatch[0]), `"message":"The admission check is active"`) || !strings.Contains(jsonOf(h.acPatch[0]), `"type":"Active"`) {
		t.Errorf("AdmissionCheck status %v", h.acPatch)
	}
}
