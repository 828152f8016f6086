package tpuslice

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// SliceReadOption asks ReadSlice for more than the Slice.
type SliceReadOption int

// WithDeviceAccess asks ReadSlice for the device access the Slice's
// partitions offer (an imported slice, whose configuration does not say).
const WithDeviceAccess SliceReadOption = 1

// ReadSlice reads the Slice, or ErrNotFound; with WithDeviceAccess, a
// Slice that Kueue does not own gets DeviceAccess (AccessOf).
func (e *Slices) ReadSlice(ctx context.Context, name string, opts ...SliceReadOption) (*clusterread.Slice, error) {
	s, err := e.readSlice(ctx, name)
	if err == nil && s.KueueWorkload == "" && slices.Contains(opts, WithDeviceAccess) {
		s.DeviceAccess = e.AccessOf(ctx, s.Topology, s.PartitionIDs)
	}
	return s, err
}

// readSlice is ReadSlice of the Slice alone.
func (e *Slices) readSlice(ctx context.Context, name string) (*clusterread.Slice, error) {
	// The process-wide inventory watches every Slice: a plan of many slices
	// reads them from it. A slice it lacks is read from the API server,
	// which says whether it is gone.
	if inv, err := e.reads.Inventory(ctx); err == nil {
		u, ok, err := inv.LookupSlice(ctx, name)
		if errors.Is(err, kernel.ErrNoAnswer) {
			// Asking the API server again would wait as long again.
			return nil, err
		}
		if ok {
			return clusterread.SliceOf(u), nil
		}
	}
	slices, err := e.sliceClient(ctx)
	if err != nil {
		return nil, err
	}
	u, err := slices.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, kernel.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading Slice %s: %w", name, err)
	}
	return clusterread.SliceOf(u), nil
}
