package tpuslice

import (
	"context"
	"fmt"
	"sort"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
)

// ListedSlice is a Slice of the cluster as `terraform query` shows it.
type ListedSlice struct {
	*clusterread.Slice
	// DeviceAccess is how its partitions' nodes offer the chips.
	DeviceAccess clusterread.DeviceAccess
	// NotImportable, when set, says why gke_tpu_slice cannot import the
	// Slice: Kueue's slice admission check made it for a workload, and
	// deletes it with the workload.
	NotImportable error
}

// List lists the cluster's Slices (they are cluster-scoped), sorted by
// name. Slices that Kueue made are listed with NotImportable set.
func (e *Slices) List(ctx context.Context) ([]ListedSlice, error) {
	c, err := e.cluster(ctx)
	if err != nil {
		return nil, err
	}
	list, err := c.Slices().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing Slices: %w", err)
	}
	out := make([]ListedSlice, 0, len(list.Items))
	for i := range list.Items {
		s := clusterread.SliceOf(&list.Items[i])
		l := ListedSlice{Slice: s, DeviceAccess: e.AccessOf(ctx, s.Topology, s.PartitionIDs)}
		if s.KueueWorkload != "" {
			l.NotImportable = clusterread.KueueOwnedError(s)
		}
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
