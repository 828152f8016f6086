package provider

import (
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestTopologyValidator(t *testing.T) {
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: probeProviderFactories,
		Steps: []tfresource.TestStep{{
			Config: `resource "gke_validator_probe" "p" { topology = "16x24x24" }`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("gke_validator_probe.p", tfjsonpath.New("topology"), knownvalue.StringExact("16x24x24")),
			},
		}},
	})
}

func TestTopologyValidator_Rejected(t *testing.T) {
	for topo, text := range rejectedTopologies {
		t.Run(topo, func(t *testing.T) {
			tfresource.UnitTest(t, tfresource.TestCase{
				ProtoV6ProviderFactories: probeProviderFactories,
				Steps: []tfresource.TestStep{{
					Config:      `resource "gke_validator_probe" "p" { topology = "` + topo + `" }`,
					ExpectError: wrapped("Invalid Topology", text),
				}},
			})
		})
	}
}
