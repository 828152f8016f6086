package tpuslice

import (
	"context"
	"errors"
	"slices"
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func TestListSlicesMarksKueueMade(t *testing.T) {
	t.Parallel()
	theirs := enginetest.Slice("kueue-made", "p2")
	theirs.SetAnnotations(map[string]string{wellknown.AnnotationOwnerWorkloadName: "train", wellknown.AnnotationOwnerWorkloadNamespace: "team"})
	dyn := enginetest.NewDynamic(enginetest.Slice("mine", "p1"), theirs)
	e := newSlicesOver(nil, func(context.Context) (Cluster, error) { return kernel.NewCluster(fake.NewClientset(), dyn), nil })
	got, err := e.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "kueue-made" || got[1].Name != "mine" {
		t.Fatalf("listed %+v, want kueue-made and mine", got)
	}
	if got[0].NotImportable == nil || !errors.Is(got[0].NotImportable, clusterread.ErrKueueOwned) || got[0].KueueWorkload != "team/train" {
		t.Errorf("Kueue's Slice: not importable %v, workload %q", got[0].NotImportable, got[0].KueueWorkload)
	}
	if got[1].NotImportable != nil || !slices.Equal(got[1].PartitionIDs, []string{"p1"}) {
		t.Errorf("mine: not importable %v, partitions %v", got[1].NotImportable, got[1].PartitionIDs)
	}
}
