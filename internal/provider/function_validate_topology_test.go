package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
)

func TestValidateTopologyFunction(t *testing.T) {
	testFunctionOutputs(t, map[string]knownvalue.Check{
		`provider::gke::validate_topology("4x4x4")`:    knownvalue.Bool(true),
		`provider::gke::validate_topology("16x24x24")`: knownvalue.Bool(true),
		`provider::gke::validate_topology("2x2x4")`:    knownvalue.Bool(true),
	})
}

// validate_topology fails with exactly the text of the plan-time validator.
func TestValidateTopologyFunction_Rejected(t *testing.T) {
	for topo, text := range rejectedTopologies {
		t.Run(topo, func(t *testing.T) {
			testFunctionError(t, `provider::gke::validate_topology("`+topo+`")`, text)
		})
	}
}

// In a variable validation, the function rejects a bad input before any
// resource is planned.
func TestValidateTopologyFunction_InVariableValidation(t *testing.T) {
	testFunctionError(t, `var.topology }
variable "topology" {
  default = "4x4"
  validation {
    condition     = provider::gke::validate_topology(var.topology)
    error_message = "unreachable: the function fails first"
  }
`, rejectedTopologies["4x4"])
}
