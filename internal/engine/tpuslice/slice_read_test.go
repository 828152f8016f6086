package tpuslice

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// A refresh of many slices reads them from the process-wide inventory; a
// slice the inventory lacks is read from the API server.
func TestReadSliceFromTheInventory(t *testing.T) {
	t.Parallel()
	inv := clusterread.Fixed(nil, []*unstructured.Unstructured{enginetest.Slice("cached", "p1")})
	dyn := enginetest.NewDynamic(enginetest.Slice("direct", "p2"))
	e := newSlicesOver(nil, func(context.Context) (Cluster, error) { return kernel.NewCluster(nil, dyn), nil },
		withInventory(inv))
	gets := func() int {
		n := 0
		for _, a := range dyn.Actions() {
			if a.GetVerb() == "get" {
				n++
			}
		}
		return n
	}

	s, err := e.ReadSlice(t.Context(), "cached")
	if err != nil || s.Name != "cached" || !reflect.DeepEqual(s.PartitionIDs, []string{"p1"}) {
		t.Fatalf("ReadSlice(cached) = %+v, %v", s, err)
	}
	if n := gets(); n != 0 {
		t.Errorf("a cached slice was read with %d gets", n)
	}
	s, err = e.ReadSlice(t.Context(), "direct")
	if err != nil || !reflect.DeepEqual(s.PartitionIDs, []string{"p2"}) {
		t.Fatalf("ReadSlice(direct) = %+v, %v", s, err)
	}
	if n := gets(); n != 1 {
		t.Errorf("a slice missing from the inventory was read with %d gets, want 1", n)
	}
	if _, err := e.ReadSlice(t.Context(), "gone"); !errors.Is(err, kernel.ErrNotFound) {
		t.Errorf("ReadSlice(gone) = %v, want ErrNotFound", err)
	}
}
