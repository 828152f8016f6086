package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// NewTopologyPartitionsFunction returns provider::gke::topology_partitions.
func NewTopologyPartitionsFunction() function.Function {
	return &topologyNumberFunction{
		name:    "topology_partitions",
		summary: "Number of partition IDs a tpu7x slice topology lists",
		description: "For a super-slice, returns `A·B·C / 64`: how many 4x4x4 partitions, and so how many 16-node sub-block node pools, the slice is made of; " +
			"for example `16x24x24` needs `144`. For a sub-slice (`2x2x1`, `2x2x2`, `2x2x4`, `2x4x4`), returns `1`: one partition of its own shape, inside one " +
			"sub-block. It is the exact length of the slice's `partition_ids`.",
		value: topology.Topology.Partitions,
	}
}
