package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
)

func TestTopologyPartitionsFunction(t *testing.T) {
	testFunctionOutputs(t, map[string]knownvalue.Check{
		`provider::gke::topology_partitions("4x4x4")`:    knownvalue.Int64Exact(1),
		`provider::gke::topology_partitions("4x8x8")`:    knownvalue.Int64Exact(4),
		`provider::gke::topology_partitions("16x24x24")`: knownvalue.Int64Exact(144),
		`provider::gke::topology_partitions("2x2x1")`:    knownvalue.Int64Exact(1),
		`provider::gke::topology_partitions("2x4x4")`:    knownvalue.Int64Exact(1),
	})
}

func TestTopologyPartitionsFunction_Rejected(t *testing.T) {
	for topo, text := range rejectedTopologies {
		t.Run(topo, func(t *testing.T) {
			testFunctionError(t, `provider::gke::topology_partitions("`+topo+`")`, text)
		})
	}
}
