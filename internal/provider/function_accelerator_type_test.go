package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
)

func TestAcceleratorTypeFunction(t *testing.T) {
	testFunctionOutputs(t, map[string]knownvalue.Check{
		`provider::gke::accelerator_type("4x4x4")`:    knownvalue.StringExact("tpu7x-128"),
		`provider::gke::accelerator_type("4x8x8")`:    knownvalue.StringExact("tpu7x-512"),
		`provider::gke::accelerator_type("16x24x24")`: knownvalue.StringExact("tpu7x-18432"),
		`provider::gke::accelerator_type("2x2x1")`:    knownvalue.StringExact("tpu7x-8"),
		`provider::gke::accelerator_type("2x2x2")`:    knownvalue.StringExact("tpu7x-16"),
		`provider::gke::accelerator_type("2x2x4")`:    knownvalue.StringExact("tpu7x-32"),
		`provider::gke::accelerator_type("2x4x4")`:    knownvalue.StringExact("tpu7x-64"),
	})
}

func TestAcceleratorTypeFunction_Rejected(t *testing.T) {
	testFunctionError(t, `provider::gke::accelerator_type("4x8x4")`, rejectedTopologies["4x8x4"])
}
