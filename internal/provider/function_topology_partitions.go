package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// NewTopologyPartitionsFunction returns provider::gke::topology_partitions.
func NewTopologyPartitionsFunction() function.Function {
	return &topologyNumberFunction{
		name:    "topology_partitions",
		summary: "Number of 4x4x4 partitions (reservation sub-blocks) a tpu7x slice topology needs",
		description: "Returns `A·B·C / 64`: how many 4x4x4 partitions, and so how many 16-node sub-block node pools, a slice of the topology is made of. " +
			"It is also the exact length of the slice's `partition_ids`. For example `16x24x24` needs `144`.",
		value: topology.Topology.Partitions,
	}
}
