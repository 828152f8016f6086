package tpuslice

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// A version check that could not run because the GKE API did not answer
// says so, rather than passing as for a cluster yet to be made.
func TestCheckVersionNoAnswer(t *testing.T) {
	t.Parallel()
	g := enginetest.NewGKE()
	g.GetErr = fmt.Errorf("Get \"https://container.example.com/v1/c\": %w", kernel.ErrNoAnswer)
	err := newSlicesOver(g, nil, boundTo("projects/p/locations/l/clusters/c")).checkVersion(t.Context(), enginetest.Topo(t, "2x2x1"))
	if !errors.Is(err, ErrVersionUnknown) || !errors.Is(err, kernel.ErrNoAnswer) ||
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
		return true, nil, fmt.Errorf("Get \"https://10.0.0.2/apis\": %w", kernel.ErrNoAnswer)
	})
	inv := clusterread.NewInventory(kernel.NewCluster(kube, dyn), clusterread.Options{})
	t.Cleanup(inv.Stop)
	e := newSlicesOver(enginetest.NewGKE(), func(context.Context) (Cluster, error) {
		t.Error("the Slice was asked of the API server again")
		return nil, errors.New("no cluster in this test")
	}, withInventory(inv))
	if _, err := e.ReadSlice(t.Context(), "s"); !errors.Is(err, kernel.ErrNoAnswer) {
		t.Errorf("ReadSlice = %v, want the no-answer", err)
	}
}
