package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// NewTopologyHostsFunction returns provider::gke::topology_hosts.
func NewTopologyHostsFunction() function.Function {
	return &topologyNumberFunction{
		name:    "topology_hosts",
		summary: "Number of tpu7x-standard-4t hosts (Kubernetes nodes) in a tpu7x slice topology",
		description: "Returns `A·B·C / 4`: every `tpu7x-standard-4t` VM carries 4 chips, so this is the number of nodes, and of pods with one pod per node, " +
			"a workload on the slice runs (the `parallelism` and `completions` of its Job). For example `4x4x4` has `16`.",
		value: topology.Topology.Hosts,
	}
}
