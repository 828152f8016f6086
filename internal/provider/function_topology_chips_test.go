package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
)

func TestTopologyChipsFunction(t *testing.T) {
	testFunctionOutputs(t, map[string]knownvalue.Check{
		`provider::gke::topology_chips("4x4x4")`:    knownvalue.Int64Exact(64),
		`provider::gke::topology_chips("8x16x16")`:  knownvalue.Int64Exact(2048),
		`provider::gke::topology_chips("16x24x24")`: knownvalue.Int64Exact(9216),
		`provider::gke::topology_chips("2x2x2")`:    knownvalue.Int64Exact(8),
	})
}

func TestTopologyChipsFunction_Rejected(t *testing.T) {
	testFunctionError(t, `provider::gke::topology_chips("8x8x256")`, rejectedTopologies["8x8x256"])
}
