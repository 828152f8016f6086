package clusterread

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func TestNodeHelpers(t *testing.T) {
	t.Parallel()
	n := enginetest.Node("n", "p")
	if NodeReady(n) {
		t.Error("NodeReady of a NotReady node")
	}
	enginetest.Ready(n)
	if !NodeReady(n) {
		t.Error("NodeReady of a Ready node is false")
	}
	if NodeReady(&corev1.Node{}) {
		t.Error("NodeReady of a node without conditions")
	}
	for i := range wellknown.PartitionIDLabels {
		old := enginetest.Node("n", "p", enginetest.Labelled(wellknown.PartitionIDLabels[i], "part-"+string(rune('0'+i)), wellknown.PartitionStateLabels[i], wellknown.PartitionDegraded))
		if got := PartitionID(old); got != "part-"+string(rune('0'+i)) {
			t.Errorf("PartitionID under %s = %q", wellknown.PartitionIDLabels[i], got)
		}
		if got := PartitionState(old); got != wellknown.PartitionDegraded {
			t.Errorf("PartitionState under %s = %q", wellknown.PartitionStateLabels[i], got)
		}
	}
	// The newest name wins when a node has both.
	both := enginetest.Node("n", "p", enginetest.Labelled(wellknown.PartitionIDLabels[2], "old", wellknown.PartitionIDLabels[0], "new"))
	if got := PartitionID(both); got != "new" {
		t.Errorf("PartitionID with old and new labels = %q, want the new label's", got)
	}
	if id, state := PartitionID(enginetest.Node("n", "p")), PartitionState(enginetest.Node("n", "p")); id != "" || state != "" {
		t.Errorf("partition of an unlabelled node = %q, %q; want none", id, state)
	}
}
