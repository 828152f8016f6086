package sandbox

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
)

// A critical failure of an ACTIVE slice (a partition's host turns
// UNHEALTHY) passes through DEACTIVATING, as GKE's dynamic slicing guide
// documents, and ends FAILED with the failure as its message; the
// dismantled slice's nodes lose the slice labels. Each step is announced
// once.
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
	if _, msg := slicecontroller.ReadyReason(obj); !strings.HasPrefix(msg, wantMsg) || strings.Contains(msg, slicecontroller.DismantlingNote) {
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
	if msg := messages[ReasonDeactivating]; !strings.HasPrefix(msg, wantMsg) || !strings.HasSuffix(msg, slicecontroller.DismantlingNote) {
		t.Errorf("DEACTIVATING Event message %q", msg)
	}
}
