package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
)

const policyConfig = `
resource "gke_workload_policy" "p" {
  name        = %q
  description = "dynamic slicing"
}
`

func TestAccWorkloadPolicy_basic(t *testing.T) {
	needTarget(t)
	name := accName("acc-policy")
	selfLink := inv("projects/sandbox-project/regions/us-central1/resourcePolicies/") + name
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoliciesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: accConfig(fmt.Sprintf(policyConfig, name)),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_workload_policy.p", tfjsonpath.New("id"), knownvalue.StringExact(selfLink)),
					statecheck.ExpectKnownValue("gke_workload_policy.p", tfjsonpath.New("type"), knownvalue.StringExact("HIGH_THROUGHPUT")),
					statecheck.ExpectKnownValue("gke_workload_policy.p", tfjsonpath.New("accelerator_topology"), knownvalue.StringExact("4x4x4")),
					statecheck.ExpectKnownValue("gke_workload_policy.p", tfjsonpath.New("accelerator_topology_mode"), knownvalue.StringExact("PROVISION_ONLY")),
					statecheck.ExpectKnownValue("gke_workload_policy.p", tfjsonpath.New("self_link"),
						knownvalue.StringRegexp(regexp.MustCompile(`/compute/v1/`+regexp.QuoteMeta(selfLink)+`$`))),
				},
			},
			{
				Config:            accConfig(fmt.Sprintf(policyConfig, name)),
				ResourceName:      "gke_workload_policy.p",
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				Config:            accConfig(fmt.Sprintf(policyConfig, name)),
				ResourceName:      "gke_workload_policy.p",
				ImportState:       true,
				ImportStateId:     name,
				ImportStateVerify: true,
			},
			{
				Config:            accConfig(fmt.Sprintf(policyConfig, name)),
				ResourceName:      "gke_workload_policy.p",
				ImportState:       true,
				ImportStateId:     "https://www.googleapis.com/compute/v1/" + selfLink,
				ImportStateVerify: true,
			},
			{
				// A changed input replaces the policy.
				Config: accConfig(fmt.Sprintf(`
resource "gke_workload_policy" "p" {
  name        = %q
  description = "changed"
}`, name)),
				ConfigPlanChecks: tfresource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("gke_workload_policy.p", plancheck.ResourceActionDestroyBeforeCreate),
				}},
			},
		},
	})
}

// A policy deleted behind Terraform's back is planned again.
func TestAccWorkloadPolicy_disappears(t *testing.T) {
	needTarget(t)
	name := accName("acc-gone")
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoliciesDestroyed(t),
		Steps: []tfresource.TestStep{{
			Config: accConfig(fmt.Sprintf(policyConfig, name)),
			Check: func(*terraform.State) error {
				c := accClientsConfig()
				return accEngine(t).Policies().Delete(context.Background(), c.Project, location.RegionOf(c.Location), name)
			},
			ExpectNonEmptyPlan: true,
		}},
	})
}

// The documented rules are checked at plan time, before any API call.
func TestAccWorkloadPolicy_rejectedAtPlan(t *testing.T) {
	needTarget(t)
	for name, tc := range map[string]struct{ body, text string }{
		"topology without HIGH_THROUGHPUT": {`type = "HIGH_AVAILABILITY"
  accelerator_topology = "4x4x4"`, `accelerator_topology "4x4x4" is only allowed with type HIGH_THROUGHPUT`},
		"PROVISION_ONLY needs 4x4x4": {`accelerator_topology = "4x8x8"`, `accelerator_topology "4x8x8" with PROVISION_ONLY: dynamic slicing provisions one 4x4x4 sub-block`},
		"unknown type":               {`type = "FAST"`, `value must be one of`},
		"bad name":                   {``, `must be 1-63 lower-case letters`},
	} {
		t.Run(name, func(t *testing.T) {
			policyName := "acc-bad"
			if name == "bad name" {
				policyName = "Bad_Name"
			}
			tfresource.Test(t, tfresource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				Steps: []tfresource.TestStep{{
					Config:      accConfig(fmt.Sprintf("resource \"gke_workload_policy\" \"p\" {\n  name = %q\n  %s\n}\n", policyName, tc.body)),
					PlanOnly:    true,
					ExpectError: wrapped(tc.text),
				}},
			})
		})
	}
}
