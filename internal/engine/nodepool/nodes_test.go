package nodepool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// A pool's partition state is the worst any of its nodes reports, however
// the nodes are ordered.
func TestViewNodesWorstState(t *testing.T) {
	t.Parallel()
	healthy := enginetest.ReadyNode("a", map[string]string{"cloud.google.com/gke-tpu-partition-4x4x4-id": "p", "cloud.google.com/gke-tpu-partition-4x4x4-state": "HEALTHY"}, true)
	degraded := enginetest.ReadyNode("b", map[string]string{"cloud.google.com/gke-tpu-partition-4x4x4-id": "p", "cloud.google.com/gke-tpu-partition-4x4x4-state": "DEGRADED"}, true)
	for _, order := range [][]any{{healthy, degraded}, {degraded, healthy}} {
		if v := viewNodes(order); v.state != wellknown.PartitionDegraded {
			t.Errorf("state %q, want DEGRADED", v.state)
		}
	}
}

// A node pool create's wait for its nodes ends when the API server does
// not answer the first list of them, naming the host, instead of waiting
// out the create timeout.
func TestWaitPartitionNoAnswer(t *testing.T) {
	t.Parallel()
	kube := fake.NewClientset()
	kube.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, fmt.Errorf("Get \"https://10.0.0.2/api/v1/nodes\": %w", kernel.ErrNoAnswer)
	})
	nodes := clusterread.WatchNodes(kernel.NewClusterAt(kube, enginetest.NewDynamic(), "https://10.0.0.2"), wellknown.LabelNodePool+"=p")
	defer nodes.Stop()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	err := waitPartition(ctx, "p", WaitHealthy, nodes)
	var access *clusterread.ClusterAccessError
	if !errors.As(err, &access) || !errors.Is(err, kernel.ErrNoAnswer) || ctx.Err() != nil ||
		!strings.Contains(err.Error(), "cannot read the cluster's nodes at https://10.0.0.2") {
		t.Errorf("waitPartition = %v, want a clusterread.ClusterAccessError for no answer, naming the host, before the timeout", err)
	}
}
