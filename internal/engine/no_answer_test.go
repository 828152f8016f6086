package engine

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

// A version check that could not run because the GKE API did not answer
// says so, rather than passing as for a cluster yet to be made.
func TestCheckVersionNoAnswer(t *testing.T) {
	t.Parallel()
	g := enginetest.NewGKE()
	g.GetErr = fmt.Errorf("Get \"https://container.example.com/v1/c\": %w", ErrNoAnswer)
	err := newEngineOver(enginetest.NewCompute(), g, nil, boundTo("projects/p/locations/l/clusters/c")).checkVersion(t.Context(), enginetest.Topo(t, "2x2x1"))
	if !errors.Is(err, ErrVersionUnknown) || !errors.Is(err, ErrNoAnswer) ||
		!strings.Contains(err.Error(), "reading the GKE version of cluster projects/p/locations/l/clusters/c") {
		t.Errorf("CheckVersion = %v, want an ErrVersionUnknown that names the cluster and the no-answer", err)
	}
}

// A Slice read whose inventory had no answer from the API server fails
// with that cause, rather than asking the silent server once more.
func TestReadSliceNoAnswer(t *testing.T) {
	t.Parallel()
	kube, _ := enginetest.NewKube()
	dyn := enginetest.NewDynamic()
	dyn.PrependReactor("list", "slices", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, fmt.Errorf("Get \"https://10.0.0.2/apis\": %w", ErrNoAnswer)
	})
	inv := clusterread.NewInventory(kernel.NewCluster(kube, dyn))
	t.Cleanup(inv.Stop)
	e := newEngineOver(enginetest.NewCompute(), enginetest.NewGKE(), func(context.Context) (Cluster, error) {
		t.Error("the Slice was asked of the API server again")
		return nil, errors.New("no cluster in this test")
	}, withInventory(inv))
	if _, err := e.ReadSlice(t.Context(), "s"); !errors.Is(err, ErrNoAnswer) {
		t.Errorf("ReadSlice = %v, want the no-answer", err)
	}
}

// A node pool create's wait for its nodes ends when the API server does
// not answer the first list of them, naming the host, instead of waiting
// out the create timeout.
func TestWaitPartitionNoAnswer(t *testing.T) {
	t.Parallel()
	kube := fake.NewClientset()
	kube.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, fmt.Errorf("Get \"https://10.0.0.2/api/v1/nodes\": %w", ErrNoAnswer)
	})
	nodes := clusterread.WatchNodes(NewClusterAt(kube, enginetest.NewDynamic(), "https://10.0.0.2"), wellknown.LabelNodePool+"=p")
	defer nodes.Stop()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	err := waitPartition(ctx, "p", WaitHealthy, nodes)
	var access *ClusterAccessError
	if !errors.As(err, &access) || !errors.Is(err, ErrNoAnswer) || ctx.Err() != nil ||
		!strings.Contains(err.Error(), "cannot read the cluster's nodes at https://10.0.0.2") {
		t.Errorf("waitPartition = %v, want a ClusterAccessError for no answer, naming the host, before the timeout", err)
	}
}
