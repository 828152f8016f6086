package tpuslice

import (
	"context"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// accessEngine is an engine over accessNodes whose Slices are slices,
// in its inventory and its API server.
func accessEngine(slices ...*unstructured.Unstructured) *Slices {
	objs := make([]*unstructured.Unstructured, len(slices))
	for i, s := range slices {
		objs[i] = s.DeepCopy()
	}
	dyn := enginetest.NewDynamic()
	for _, s := range objs {
		_ = dyn.Tracker().Add(s)
	}
	return newSlicesOver(nil, func(context.Context) (Cluster, error) { return kernel.NewCluster(nil, dyn), nil },
		withInventory(clusterread.Fixed(accessNodes(), slices)))
}

// Asked to, a read of a Slice says which device access its partitions'
// nodes offer; otherwise it does not look.
func TestReadSliceWithDeviceAccess(t *testing.T) {
	t.Parallel()
	e := accessEngine(enginetest.Slice("dra", "d1", "d2"), enginetest.Slice("plain", "p1"))
	for name, want := range map[string]clusterread.DeviceAccess{"dra": clusterread.DRA, "plain": clusterread.DevicePlugin} {
		s, err := e.ReadSlice(t.Context(), name, WithDeviceAccess)
		if err != nil || s.DeviceAccess != want {
			t.Errorf("ReadSlice(%s, WithDeviceAccess) = %+v, %v; want access %q", name, s, err, want)
		}
	}
	if s, err := e.ReadSlice(t.Context(), "dra"); err != nil || s.DeviceAccess != "" {
		t.Errorf("ReadSlice(dra) = %+v, %v; want no access looked up", s, err)
	}
}

// An update checks a changed access before it writes retry-on-failure: an
// access the nodes do not offer writes nothing; a failed write is a
// RetryOnFailureError.
func TestUpdateSlice(t *testing.T) {
	t.Parallel()
	e := accessEngine(enginetest.Slice("s", "p1"))
	retry, dra, plugin := true, clusterread.DRA, clusterread.DevicePlugin
	err := e.UpdateSlice(t.Context(), SliceUpdate{Name: "s", Topology: "4x4x4", PartitionIDs: []string{"p1"}, Access: &dra, RetryOnFailure: &retry})
	var mismatch *DeviceAccessError
	if !errors.As(err, &mismatch) {
		t.Fatalf("UpdateSlice to DRA on device-plugin nodes = %v, want a DeviceAccessError", err)
	}
	annotation := func() string {
		c, _ := e.cluster(t.Context())
		u, err := c.Slices().Get(t.Context(), "s", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return u.GetAnnotations()[wellknown.AnnotationRetryOnFailure]
	}
	if got := annotation(); got != "" {
		t.Errorf("retry-on-failure written (%q) after the access was refused", got)
	}
	if err := e.UpdateSlice(t.Context(), SliceUpdate{Name: "s", Topology: "4x4x4", PartitionIDs: []string{"p1"}, Access: &plugin, RetryOnFailure: &retry}); err != nil {
		t.Fatalf("UpdateSlice: %v", err)
	}
	if got := annotation(); got != "true" {
		t.Errorf("retry-on-failure = %q after the update, want true", got)
	}
	var write *RetryOnFailureError
	if err := e.UpdateSlice(t.Context(), SliceUpdate{Name: "gone", RetryOnFailure: &retry}); !errors.As(err, &write) {
		t.Errorf("UpdateSlice of a missing Slice = %v, want a RetryOnFailureError", err)
	}
}
