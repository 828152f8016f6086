package slicecontroller

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// A formed slice follows its partitions' health: a DEGRADED partition
// makes it ACTIVE_DEGRADED (a Warning), a healthy one ACTIVE again (a
// Normal Event); an UNHEALTHY one is a critical failure: DEACTIVATING
// while it is dismantled, its nodes still labelled, then FAILED with the
// failure, its nodes free. FAILED is final.
func TestHealthFollowsPartitions(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.addPartition("pa", "4x4x4", healthy, "block-a")
	r.addPartition("pb", "4x4x4", healthy, "block-a")
	r.createSlice("s", "4x4x8", false, "pa", "pb")
	r.step("s")
	r.stepUntil("s", ReasonActive)

	r.setPartitionState("pb", wellknown.PartitionDegraded)
	r.step("s")
	if r.state("s") != ReasonActiveDegraded || r.message("s") != "The slice is usable; degraded partitions: pb" {
		t.Errorf("with pb DEGRADED: %s %q", r.state("s"), r.message("s"))
	}
	r.setPartitionState("pb", healthy)
	r.step("s")
	if r.state("s") != ReasonActive {
		t.Errorf("with pb healthy again: %s", r.state("s"))
	}

	r.setPartitionState("pa", wellknown.PartitionUnhealthy)
	r.step("s")
	const failure = "partition pa became UNHEALTHY (16 of 16 nodes exist)"
	if r.state("s") != ReasonDeactivating || r.message("s") != failure+DismantlingNote {
		t.Errorf("with pa UNHEALTHY: %s %q; want DEACTIVATING %q", r.state("s"), r.message("s"), failure+DismantlingNote)
	}
	r.wantSliceLabels("pa", "4x4x4", "s", "4x4x8")
	r.step("s")
	if r.state("s") != ReasonFailed || r.message("s") != failure {
		t.Errorf("after dismantling: %s %q; want FAILED %q", r.state("s"), r.message("s"), failure)
	}
	r.wantCondition(ConditionReady, "False")
	r.wantSliceLabels("pa", "4x4x4", "", "")
	r.wantSliceLabels("pb", "4x4x4", "", "")
	r.wantEvents("s Normal ACTIVE", "s Warning ACTIVE_DEGRADED", "s Normal ACTIVE", "s Warning DEACTIVATING", "s Warning FAILED")

	r.setPartitionState("pa", healthy)
	before := r.updates()
	if r.step("s"); r.updates() != before || r.state("s") != ReasonFailed {
		t.Errorf("a FAILED slice whose partition recovered: %s after %d write(s); want FAILED and none", r.state("s"), r.updates()-before)
	}
}

// A partition whose nodes are all gone is INCOMPLETE: a critical failure
// of the slice formed over it.
func TestVanishedPartitionFailsTheSlice(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	nodes := r.addPartition("pa", "4x4x4", healthy, "block-a")
	r.createSlice("s", "4x4x4", false, "pa")
	r.step("s")
	r.stepUntil("s", ReasonActive)
	for _, n := range nodes {
		if err := r.kube.CoreV1().Nodes().Delete(context.Background(), n, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	wantStates(t, r.stepUntil("s", ReasonFailed), ReasonDeactivating, ReasonFailed)
	if msg := r.message("s"); !strings.HasPrefix(msg, "partition pa became INCOMPLETE (0 of 16 nodes exist)") {
		t.Errorf("message %q", msg)
	}
	r.wantEvents("s Normal ACTIVE", "s Warning DEACTIVATING", "s Warning FAILED")
}
