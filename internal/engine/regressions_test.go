package engine

import (
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func TestCanonicalNodePoolID(t *testing.T) {
	want := "projects/p/locations/l/clusters/c/nodePools/n"
	for _, in := range []string{want, "https://container.googleapis.com/v1/" + want} {
		if got, err := CanonicalNodePoolID(in); err != nil || got != want {
			t.Errorf("CanonicalNodePoolID(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := CanonicalNodePoolID("n"); err == nil {
		t.Error("a bare name was accepted")
	}
}

// A pool's partition state is the worst any of its nodes reports, however
// the nodes are ordered.
func TestViewNodesWorstState(t *testing.T) {
	healthy := enginetest.ReadyNode("a", map[string]string{"cloud.google.com/gke-tpu-partition-4x4x4-id": "p", "cloud.google.com/gke-tpu-partition-4x4x4-state": "HEALTHY"}, true)
	degraded := enginetest.ReadyNode("b", map[string]string{"cloud.google.com/gke-tpu-partition-4x4x4-id": "p", "cloud.google.com/gke-tpu-partition-4x4x4-state": "DEGRADED"}, true)
	for _, order := range [][]any{{healthy, degraded}, {degraded, healthy}} {
		if v := viewNodes(order); v.state != wellknown.PartitionDegraded {
			t.Errorf("state %q, want DEGRADED", v.state)
		}
	}
}
