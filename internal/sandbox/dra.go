package sandbox

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dra"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
)

// LabelTPUDRADriver is the node label with which a node pool asks for GKE's
// TPU DRA driver ("true"); see package dra.
const LabelTPUDRADriver = dra.LabelDriver

// DriverTPU is the name of GKE's TPU DRA driver, of its DeviceClass, and
// the domain of its device attributes.
const DriverTPU = dra.Driver

// chipsPerHost is the number of TPU chips of a tpu7x-standard-4t host.
const chipsPerHost = dra.ChipsPerHost

// devicePlace is where host h of the sub-block is, as the TPU DRA driver
// describes its devices: the block, the sub-block and the host's
// partition of every shape.
func devicePlace(sb *subBlockState, h int) dra.Place {
	place := dra.Place{Block: cloud.BlockTopologyID(sb), SubBlock: cloud.SubBlockTopologyID(sb), Partitions: map[string]string{}}
	for _, shape := range slicerules.PartitionShapes {
		place.Partitions[shape] = sb.SubPartitionID(shape, slicerules.SubPartitionIndex(h, shape))
	}
	return place
}

// publishDeviceSlice publishes the node's ResourceSlice when its pool asked
// for the TPU DRA driver; other nodes have google.com/tpu capacity instead.
func (w *world) publishDeviceSlice(ctx context.Context, node *corev1.Node, sb *subBlockState, h int) error {
	return dra.Publish(ctx, w.Kube.ResourceV1().ResourceSlices(), node, devicePlace(sb, h))
}
