package dra

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The ResourceSlice of a node: one device a chip, the node's pool, owned
// by the node, each device with the node's place.
func TestDeviceSlice(t *testing.T) {
	t.Parallel()
	place := Place{Block: "blk", SubBlock: "sub", Partitions: map[string]string{"2x2x2": "p-2x2x2", "4x4x4": "p-4x4x4"}}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "gke-n", UID: types.UID("u-1"), Labels: map[string]string{wellknown.LabelAccelerator: "tpu7x"}}}
	slice := DeviceSlice(node, place)
	if slice.Spec.Driver != Driver || slice.Spec.Pool.Name != "gke-n" || slice.Spec.NodeName == nil || *slice.Spec.NodeName != "gke-n" ||
		slice.Spec.Pool.ResourceSliceCount != 1 || len(slice.Spec.Devices) != ChipsPerHost {
		t.Fatalf("slice spec %+v", slice.Spec)
	}
	if o := slice.OwnerReferences; len(o) != 1 || o[0].Kind != "Node" || o[0].UID != "u-1" {
		t.Errorf("owner references %+v; want the node", o)
	}
	for i, d := range slice.Spec.Devices {
		if d.Name != fmt.Sprintf("tpu%d", i) || *d.Attributes["index"].IntValue != int64(i) || *d.Attributes["acceleratorType"].StringValue != "tpu7x" {
			t.Errorf("device %d: %+v", i, d)
		}
		for attr, want := range map[string]string{"block": "blk", "subBlock": "sub", "partition2x2x2": "p-2x2x2", "partition4x4x4": "p-4x4x4"} {
			if got := *d.Attributes[resourcev1.QualifiedName(attr)].StringValue; got != want {
				t.Errorf("device %d %s %q, want %q", i, attr, got, want)
			}
		}
	}
}
