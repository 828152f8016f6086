// Package dra stands in for GKE's TPU DRA driver: a node pool opts into it
// with a node label, and its nodes then offer their chips as DRA devices (a
// ResourceSlice per node) instead of the google.com/tpu extended resource.
// The sandbox publishes the slice when it registers the node, and installs
// the driver's DeviceClass at start. The real kube-scheduler allocates the
// devices of a ResourceClaim (made by kube-controller-manager from a pod's
// ResourceClaimTemplate) from these slices.
package dra

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// LabelDriver is the node label with which a node pool asks for GKE's TPU
// DRA driver ("true").
const LabelDriver = "cloud.google.com/gke-tpu-dra-driver"

// Driver is the name of GKE's TPU DRA driver, of its DeviceClass, and the
// domain of its device attributes.
const Driver = "tpu.google.com"

// ChipsPerHost is the number of TPU chips of a tpu7x-standard-4t host.
const ChipsPerHost = 4

// Place is where a node's host is: the opaque IDs of its block and
// sub-block, and the ID of its partition of each shape (by shape).
type Place struct {
	Block, SubBlock string
	Partitions      map[string]string
}

// deviceClass selects every device of the TPU driver.
func deviceClass() *resourcev1.DeviceClass {
	return &resourcev1.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: Driver},
		Spec: resourcev1.DeviceClassSpec{
			Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{
				Expression: `device.driver == "` + Driver + `"`,
			}}},
		},
	}
}

// InstallDeviceClass creates the TPU DeviceClass (kept if it is there).
func InstallDeviceClass(ctx context.Context, kube interface {
	Create(context.Context, *resourcev1.DeviceClass, metav1.CreateOptions) (*resourcev1.DeviceClass, error)
}) error {
	if _, err := kube.Create(ctx, deviceClass(), metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the DeviceClass %s: %w", Driver, err)
	}
	return nil
}

// DeviceSlice is the ResourceSlice the TPU driver publishes for a node at
// the place: one pool named after the node, one device a chip, with the
// attributes a claim may select on: the chip's index, the accelerator
// type, and the node's place (block, sub-block and the partitions of every
// shape). The Node owns it, so that the garbage collector deletes it with
// the node.
func DeviceSlice(node *corev1.Node, place Place) *resourcev1.ResourceSlice {
	str := func(s string) resourcev1.DeviceAttribute { return resourcev1.DeviceAttribute{StringValue: ptr.To(s)} }
	devices := make([]resourcev1.Device, ChipsPerHost)
	for i := range devices {
		attrs := map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{
			"index":           {IntValue: ptr.To(int64(i))},
			"acceleratorType": str(node.Labels[wellknown.LabelAccelerator]),
			"block":           str(place.Block),
			"subBlock":        str(place.SubBlock),
		}
		for shape, id := range place.Partitions {
			attrs[resourcev1.QualifiedName("partition"+shape)] = str(id)
		}
		devices[i] = resourcev1.Device{Name: "tpu" + strconv.Itoa(i), Attributes: attrs}
	}
	return &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{
			Name: node.Name + "-" + Driver,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID, Controller: ptr.To(true),
			}},
		},
		Spec: resourcev1.ResourceSliceSpec{
			Driver:   Driver,
			Pool:     resourcev1.ResourcePool{Name: node.Name, Generation: 1, ResourceSliceCount: 1},
			NodeName: ptr.To(node.Name),
			Devices:  devices,
		},
	}
}

// Publish publishes the node's ResourceSlice when its pool asked for the
// TPU DRA driver; other nodes have google.com/tpu capacity instead.
func Publish(ctx context.Context, slices interface {
	Create(context.Context, *resourcev1.ResourceSlice, metav1.CreateOptions) (*resourcev1.ResourceSlice, error)
}, node *corev1.Node, place Place) error {
	if node.Labels[LabelDriver] != "true" {
		return nil
	}
	_, err := slices.Create(ctx, DeviceSlice(node, place), metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("publishing the TPU devices of node %s (ResourceSlice): %w", node.Name, err)
	}
	return nil
}
