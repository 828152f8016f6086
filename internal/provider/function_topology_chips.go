package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// NewTopologyChipsFunction returns provider::gke::topology_chips.
func NewTopologyChipsFunction() function.Function {
	return &topologyNumberFunction{
		name:        "topology_chips",
		summary:     "Number of TPU chips in a tpu7x slice topology",
		description: "Returns `A·B·C`, the number of Ironwood chips in the slice; at most 9216 (a full pod). For example `4x8x8` has `256`.",
		value:       topology.Topology.Chips,
	}
}
