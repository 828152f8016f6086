package tpuslice

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// A plan of a new slice reports the first problem known: listed
// partitions held by another slice, or a selection the pools cannot meet;
// nothing while what it needs is not known yet.
func TestPlanNewSlice(t *testing.T) {
	t.Parallel()
	e := planEngine(clusterread.Fixed(enginetest.PlanNodes(), []*unstructured.Unstructured{enginetest.Slice("other", "p2")}))
	for name, tc := range map[string]struct {
		plan NewSlicePlan
		want NewSliceProblem
	}{
		"free partitions":         {NewSlicePlan{Name: "s", Topology: "4x4x4", PartitionIDs: []string{"p1"}}, NoProblem},
		"a held partition":        {NewSlicePlan{Name: "s", Topology: "4x4x4", PartitionIDs: []string{"p2"}}, PartitionsUnusable},
		"a selection that fits":   {NewSlicePlan{Name: "s", Topology: "4x4x4", Selector: &PartitionSelector{NodePools: []string{"np-1"}}}, NoProblem},
		"a selection that cannot": {NewSlicePlan{Name: "s", Topology: "4x4x8", Selector: &PartitionSelector{NodePools: []string{"np-1", "np-2"}}}, SelectionUnmet},
		"an empty pool list":      {NewSlicePlan{Name: "s", Topology: "4x4x4", Selector: &PartitionSelector{NodePools: []string{}}}, SelectionUnmet},
		"topology not known":      {NewSlicePlan{Name: "s", PartitionIDs: []string{"p2"}}, NoProblem},
		"partitions not known":    {NewSlicePlan{Name: "s", Topology: "4x4x4"}, NoProblem},
	} {
		if got := e.PlanNewSlice(t.Context(), tc.plan); got.Problem != tc.want || (tc.want != NoProblem) != (got.Err != nil) {
			t.Errorf("%s: %+v, want problem %d", name, got, tc.want)
		}
	}
}

// A plan replaces a slice that is FAILED or being deleted, saying why.
func TestCheckExistingSlice(t *testing.T) {
	t.Parallel()
	failed := enginetest.SliceWithState("failed", clusterread.SliceFailed, "1")
	deleting := enginetest.SliceWithState("deleting", clusterread.SliceActive, "1")
	deleting.SetFinalizers([]string{wellknown.SliceFinalizer})
	deleting.SetDeletionTimestamp(&metav1.Time{Time: time.Now()})
	e, _ := sliceEngine(failed, enginetest.SliceWithState("active", clusterread.SliceActive, "1"), deleting)
	for name, want := range map[string]string{"failed": "Slice failed is FAILED", "deleting": "Slice deleting is being deleted", "active": "", "gone": ""} {
		v := e.CheckExistingSlice(t.Context(), name)
		if v.Replace != (want != "") || v.Why[:min(len(v.Why), len(want))] != want {
			t.Errorf("%s: %+v, want replace %v saying %q", name, v, want != "", want)
		}
	}
}
