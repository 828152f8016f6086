package cloud

import (
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dra"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
)

// DevicePlace is where host h of the sub-block is, as the TPU DRA driver
// describes its devices: the block, the sub-block and the host's
// partition of every shape.
func DevicePlace(sb *SubBlockState, h int) dra.Place {
	place := dra.Place{Block: BlockTopologyID(sb), SubBlock: SubBlockTopologyID(sb), Partitions: map[string]string{}}
	for _, shape := range slicerules.PartitionShapes {
		place.Partitions[shape] = sb.SubPartitionID(shape, slicerules.SubPartitionIndex(h, shape))
	}
	return place
}

// publishDeviceSlice publishes the node's ResourceSlice when its pool asked
// for the TPU DRA driver; other nodes have google.com/tpu capacity instead.
func (w *World) publishDeviceSlice(ctx context.Context, node *corev1.Node, sb *SubBlockState, h int) error {
	return dra.Publish(ctx, w.Kube.ResourceV1().ResourceSlices(), node, DevicePlace(sb, h))
}
