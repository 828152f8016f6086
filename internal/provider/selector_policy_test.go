package provider

import (
	"fmt"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// A selector by workload policy selects among the pools the policy
// places. A slice whose selector moves from listing those pools to naming
// their policy (the slice-stack module's upgrade) is kept, updated in
// place; one moved to a policy that places none of its partitions is
// replaced, saying why.
func TestAccTPUSlice_selectorByWorkloadPolicy(t *testing.T) {
	needTarget(t)
	pools := slicePools("bypolicy", "tpu7x-reservation", "block-a", "sub-block-a1", "sub-block-a2")
	name := accName("by-policy")
	slice := func(selector string) string {
		return accConfig(pools + fmt.Sprintf(`
resource "gke_workload_policy" "other" {
  name = %q
}

resource "gke_tpu_slice" "s" {
  name     = %q
  topology = "4x4x8"
  partition_selector {
    %s
  }
  depends_on = [gke_subblock_node_pool.sub-block-a1, gke_subblock_node_pool.sub-block-a2]
}`, accName("bypolicy-other"), name, selector))
	}
	listed := slice(`node_pools = [gke_subblock_node_pool.sub-block-a1.name, gke_subblock_node_pool.sub-block-a2.name]`)
	byPolicy := slice(`workload_policy = gke_workload_policy.p.name`)
	recordSlice, sameSlice := sliceUID(t, name)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: listed,
				Check:  recordSlice,
			},
			{
				// The same pools, named by their policy: kept.
				Config: byPolicy,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{
					PreApply:             []plancheck.PlanCheck{plancheck.ExpectResourceAction("gke_tpu_slice.s", plancheck.ResourceActionUpdate)},
					PostApplyPostRefresh: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
				},
				Check: sameSlice,
			},
			{
				// A policy that places none of its pools: replaced.
				Config:             slice(`workload_policy = gke_workload_policy.other.name`),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
				ConfigPlanChecks: tfresource.ConfigPlanChecks{
					PostApplyPreRefresh: []plancheck.PlanCheck{plancheck.ExpectResourceAction("gke_tpu_slice.s", plancheck.ResourceActionDestroyBeforeCreate)},
				},
			},
			{
				// Created anew under the policy: it selects the policy's
				// pools.
				Config: byPolicy,
				Taint:  []string{"gke_tpu_slice.s"},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
					statecheck.ExpectKnownValue("gke_tpu_slice.s", tfjsonpath.New("partition_ids"), knownvalue.ListSizeExact(2)),
				},
			},
		},
	})
}
