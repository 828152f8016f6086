package provider

import (
	"fmt"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// gke_partitions filters by node pool, state, block and availability, and
// totals by state.
func TestAccPartitionsDataSource(t *testing.T) {
	needSandboxInventory(t, "block-b's sub-blocks with a degraded and an unhealthy host")
	pools := slicePools("inv", "tpu7x-reservation", "block-b", "sub-block-b1", "sub-block-b2", "sub-block-b3")
	names := fmt.Sprintf("[%q, %q, %q]", poolName("inv", "sub-block-b1"), poolName("inv", "sub-block-b2"), poolName("inv", "sub-block-b3"))
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools)},
			{
				Config: accConfig(pools + `
data "gke_partitions" "all" {
  node_pools = ` + names + `
}
data "gke_partitions" "healthy" {
  node_pools = ` + names + `
  states     = ["HEALTHY"]
}
data "gke_partitions" "available" {
  node_pools     = ` + names + `
  available_only = true
}
data "gke_partitions" "block" {
  node_pools = ` + names + `
  block      = data.gke_partitions.all.partitions[0].block
}
data "gke_partitions" "nowhere" {
  block = "no-such-block"
}
`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gke_partitions.all", tfjsonpath.New("totals"), knownvalue.MapExact(map[string]knownvalue.Check{
						"HEALTHY": knownvalue.Int64Exact(1), "DEGRADED": knownvalue.Int64Exact(1), "INCOMPLETE": knownvalue.Int64Exact(1),
					})),
					statecheck.ExpectKnownValue("data.gke_partitions.healthy", tfjsonpath.New("ids"), knownvalue.ListSizeExact(1)),
					statecheck.ExpectKnownValue("data.gke_partitions.healthy", tfjsonpath.New("partitions").AtSliceIndex(0).AtMapKey("node_pool"), knownvalue.StringExact(poolName("inv", "sub-block-b1"))),
					statecheck.ExpectKnownValue("data.gke_partitions.healthy", tfjsonpath.New("partitions").AtSliceIndex(0).AtMapKey("ready_nodes"), knownvalue.Int64Exact(16)),
					statecheck.ExpectKnownValue("data.gke_partitions.available", tfjsonpath.New("ids"), knownvalue.ListSizeExact(2)),
					statecheck.ExpectKnownValue("data.gke_partitions.block", tfjsonpath.New("ids"), knownvalue.ListSizeExact(3)),
					statecheck.ExpectKnownValue("data.gke_partitions.nowhere", tfjsonpath.New("ids"), knownvalue.ListSizeExact(0)),
				},
			},
		},
	})
}
