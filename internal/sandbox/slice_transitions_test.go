package sandbox

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

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

// A critical failure of an ACTIVE slice (a partition's host turns
// UNHEALTHY) passes through DEACTIVATING, as seeds/000 documents, and
// ends FAILED with the failure as its message; the dismantled slice's
// nodes lose the slice labels. Each step is announced once.
func TestSliceCriticalFailureDeactivates(t *testing.T) {
	needSandbox(t)
	ids := partitionsOf(t, "tpu7x-reservation", "block-a", "sub-block-a3")
	rec := createSlice(t, "critical", "4x4x4", ids, nil)
	uid := waitSliceState(t, "critical", ReasonActive).GetUID()
	if n := sliceLabelledNodes(t, "critical"); n != 16 {
		t.Fatalf("%d nodes carry the slice label, want 16", n)
	}
	ctx := testContext(t)
	t.Cleanup(func() {
		_ = testSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-a", "sub-block-a3", 5, HostHealthy)
	})
	if err := testSandbox.SetHostHealth(ctx, "tpu7x-reservation", "block-a", "sub-block-a3", 5, HostUnhealthy); err != nil {
		t.Fatal(err)
	}

	obj := waitSliceState(t, "critical", ReasonFailed)
	want := []string{ReasonSliceNotCreated, ReasonActivating, ReasonActive, ReasonDeactivating, ReasonFailed}
	if got := rec.seenUntil(t, ReasonFailed); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("states %v, want %v", got, want)
	}
	wantMsg := "partition " + ids[0] + " became UNHEALTHY"
	if _, msg := readyReason(obj); !strings.HasPrefix(msg, wantMsg) || strings.Contains(msg, dismantlingNote) {
		t.Errorf("FAILED message %q; want the failure, %q...", msg, wantMsg)
	}
	if readyCondition(obj)["status"] != "False" {
		t.Errorf("Ready condition of a FAILED slice: %v", readyCondition(obj))
	}
	if n := sliceLabelledNodes(t, "critical"); n != 0 {
		t.Errorf("%d nodes keep the slice label after the slice was dismantled", n)
	}

	deleteSliceAndWait(t, "critical")
	reasons, messages := sliceEvents(t, uid)
	for _, r := range []string{corev1.EventTypeWarning + "/" + ReasonDeactivating, corev1.EventTypeWarning + "/" + ReasonFailed} {
		if n := count(reasons, r); n != 1 {
			t.Errorf("%d %s Events (all: %v); want 1", n, r, reasons)
		}
	}
	if msg := messages[ReasonDeactivating]; !strings.HasPrefix(msg, wantMsg) || !strings.HasSuffix(msg, dismantlingNote) {
		t.Errorf("DEACTIVATING Event message %q", msg)
	}
}
