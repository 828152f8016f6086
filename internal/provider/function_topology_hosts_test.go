package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
)

func TestTopologyHostsFunction(t *testing.T) {
	testFunctionOutputs(t, map[string]knownvalue.Check{
		`provider::gke::topology_hosts("4x4x4")`:    knownvalue.Int64Exact(16),
		`provider::gke::topology_hosts("4x8x8")`:    knownvalue.Int64Exact(64),
		`provider::gke::topology_hosts("16x24x24")`: knownvalue.Int64Exact(2304),
		`provider::gke::topology_hosts("2x2x1")`:    knownvalue.Int64Exact(1),
		`provider::gke::topology_hosts("2x4x4")`:    knownvalue.Int64Exact(8),
	})
}

func TestTopologyHostsFunction_Rejected(t *testing.T) {
	testFunctionError(t, `provider::gke::topology_hosts("4x4x6")`, rejectedTopologies["4x4x6"])
}
