package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// A first list that neither finishes nor fails ends the wait at the
// informer's limit with a ClusterAccessError naming the host and what to
// check, and a later wait for it does not begin the limit again.
func TestWaitSyncedBoundsTheFirstList(t *testing.T) {
	t.Parallel()
	s := &informerSync{what: "nodes", resource: "nodes", host: "https://10.0.0.2", limit: 50 * time.Millisecond,
		synced: func() bool { return false }}
	for i := range 2 {
		err := waitSynced(t.Context(), s)
		var access *ClusterAccessError
		if !errors.As(err, &access) {
			t.Fatalf("wait %d: %v, want a ClusterAccessError", i, err)
		}
		for _, want := range []string{"cannot read the cluster's nodes at https://10.0.0.2", "the first list did not finish in 50ms", "reachable from here"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("wait %d: %q does not say %q", i, err, want)
			}
		}
	}
	if first, again := s.deadline(), s.deadline(); !first.Equal(again) {
		t.Errorf("the deadline moved from %s to %s between waits", first, again)
	}
}

// A list with no answer ends the wait at once: the request timeout
// already waited.
func TestWaitSyncedNoAnswerIsPermanent(t *testing.T) {
	t.Parallel()
	s := &informerSync{what: "Slices", resource: "slices.accelerator.gke.io", host: "https://10.0.0.2",
		synced: func() bool { return false }}
	s.record(t.Context(), nil, fmt.Errorf("failed to list: %w", ErrNoAnswer))
	err := waitSynced(t.Context(), s)
	var access *ClusterAccessError
	if !errors.As(err, &access) || !errors.Is(err, ErrNoAnswer) || !strings.Contains(err.Error(), "at https://10.0.0.2") {
		t.Errorf("waitSynced = %v, want a ClusterAccessError for no answer naming the host", err)
	}
}

// silentSlices is a Slice API whose lists have no answer.
type silentSlices struct {
	dynamic.ResourceInterface
	lists atomic.Int32
}

func (s *silentSlices) List(context.Context, metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	s.lists.Add(1)
	return nil, fmt.Errorf("Get \"https://10.0.0.2/apis/accelerator.gke.io/v1beta1/slices\": %w", ErrNoAnswer)
}

// A wait for a Slice whose first list has no answer fails at once, naming
// the cause, instead of retrying until the resource's timeout.
func TestWatchSliceFirstListNoAnswerFails(t *testing.T) {
	t.Parallel()
	s := &silentSlices{}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	err := watchSliceWith(ctx, s, "s", func(*unstructured.Unstructured, bool) (bool, error) { return true, nil },
		func(context.Context, time.Duration) error { return nil })
	if !errors.Is(err, ErrNoAnswer) || ctx.Err() != nil || s.lists.Load() != 1 {
		t.Errorf("watchSlice = %v after %d lists, want the no-answer of the first", err, s.lists.Load())
	}
}

// A version check that could not run because the GKE API did not answer
// says so, rather than passing as for a cluster yet to be made.
func TestCheckVersionNoAnswer(t *testing.T) {
	t.Parallel()
	g := enginetest.NewGKE()
	g.GetErr = fmt.Errorf("Get \"https://container.example.com/v1/c\": %w", ErrNoAnswer)
	err := bindCluster(newEngineOver(enginetest.NewCompute(), g, nil), "projects/p/locations/l/clusters/c").checkVersion(t.Context(), enginetest.Topo(t, "2x2x1"))
	if !errors.Is(err, ErrVersionUnknown) || !errors.Is(err, ErrNoAnswer) ||
		!strings.Contains(err.Error(), "reading the GKE version of cluster projects/p/locations/l/clusters/c") {
		t.Errorf("CheckVersion = %v, want an ErrVersionUnknown that names the cluster and the no-answer", err)
	}
}

// A Slice read whose inventory had no answer from the API server fails
// with that cause, rather than asking the silent server once more.
func TestReadSliceNoAnswer(t *testing.T) {
	t.Parallel()
	inv := syncedInventory(nil, nil)
	inv.sliceSync.synced = func() bool { return false }
	inv.sliceSync.record(t.Context(), nil, fmt.Errorf("Get \"https://10.0.0.2/apis\": %w", ErrNoAnswer))
	e := newEngineOver(enginetest.NewCompute(), enginetest.NewGKE(), func(context.Context) (Cluster, error) {
		t.Error("the Slice was asked of the API server again")
		return nil, errors.New("no cluster in this test")
	})
	useInventory(e, inv)
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
	nodes := watchNodes(NewClusterAt(kube, enginetest.NewDynamic(), "https://10.0.0.2"), wellknown.LabelNodePool+"=p")
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
