package provider

import (
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// gke_reservation_sub_blocks lists a block's sub-blocks, sorted by name,
// with their counts and health as Compute Engine reports them; a sub-block
// a node pool takes is in use, not free, and names the pool; an unknown
// block is an error that names it.
func TestAccReservationSubBlocksDataSource(t *testing.T) {
	needSandboxInventory(t, "block-b's sub-blocks with a degraded and an unhealthy host, and block-a's four sub-blocks")
	subBlock := func(address string, i int, attr string, want knownvalue.Check) statecheck.StateCheck {
		return listItem(address, "sub_blocks", i, attr, want)
	}
	b := "data.gke_reservation_sub_blocks.b"
	a := "data.gke_reservation_sub_blocks.a"
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				// block-b of the default inventory: four free sub-blocks of
				// 16 hosts; b2 has a degraded host, b3 an unhealthy one.
				Config: accConfig(reservationData("gke_reservation_sub_blocks", "b", "block-b", "", "")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(b, tfjsonpath.New("project"), knownvalue.StringExact("sandbox-project")),
					statecheck.ExpectKnownValue(b, tfjsonpath.New("sub_block_count"), knownvalue.Int64Exact(4)),
					statecheck.ExpectKnownValue(b, tfjsonpath.New("sub_block_in_use_count"), knownvalue.Int64Exact(0)),
					statecheck.ExpectKnownValue(b, tfjsonpath.New("free_sub_blocks"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("sub-block-b1"), knownvalue.StringExact("sub-block-b2"),
						knownvalue.StringExact("sub-block-b3"), knownvalue.StringExact("sub-block-b4"),
					})),
					statecheck.ExpectKnownValue(b, tfjsonpath.New("sub_blocks"), knownvalue.ListSizeExact(4)),
					subBlock(b, 0, "name", knownvalue.StringExact("sub-block-b1")),
					subBlock(b, 0, "free", knownvalue.Bool(true)),
					subBlock(b, 0, "count", knownvalue.Int64Exact(16)),
					subBlock(b, 0, "in_use_count", knownvalue.Int64Exact(0)),
					subBlock(b, 0, "health", knownvalue.StringExact("HEALTHY")),
					subBlock(b, 0, "healthy_host_count", knownvalue.Int64Exact(16)),
					subBlock(b, 0, "degraded_host_count", knownvalue.Int64Exact(0)),
					subBlock(b, 0, "node_pool", knownvalue.StringExact("")),
					subBlock(b, 0, "reservation_path", knownvalue.StringExact(
						"projects/sandbox-project/reservations/tpu7x-reservation/reservationBlocks/block-b/reservationSubBlocks/sub-block-b1")),
					subBlock(b, 1, "name", knownvalue.StringExact("sub-block-b2")),
					subBlock(b, 1, "health", knownvalue.StringExact("DEGRADED")),
					subBlock(b, 1, "healthy_host_count", knownvalue.Int64Exact(15)),
					subBlock(b, 1, "degraded_host_count", knownvalue.Int64Exact(1)),
					subBlock(b, 2, "name", knownvalue.StringExact("sub-block-b3")),
					subBlock(b, 2, "health", knownvalue.StringExact("UNHEALTHY")),
					subBlock(b, 2, "healthy_host_count", knownvalue.Int64Exact(15)),
					subBlock(b, 2, "degraded_host_count", knownvalue.Int64Exact(1)),
					subBlock(b, 3, "name", knownvalue.StringExact("sub-block-b4")),
					subBlock(b, 3, "health", knownvalue.StringExact("HEALTHY")),
				},
			},
			{
				// A node pool on sub-block-a1: that sub-block is in use.
				Config: poolConfig("acc-sub-blocks", "acc-sub-blocks", `reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a1"`) + reservationData("gke_reservation_sub_blocks", "a", "block-a", "", "gke_subblock_node_pool.np"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(a, tfjsonpath.New("sub_block_count"), knownvalue.Int64Exact(4)),
					statecheck.ExpectKnownValue(a, tfjsonpath.New("sub_block_in_use_count"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue(a, tfjsonpath.New("free_sub_blocks"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("sub-block-a2"), knownvalue.StringExact("sub-block-a3"), knownvalue.StringExact("sub-block-a4"),
					})),
					subBlock(a, 0, "name", knownvalue.StringExact("sub-block-a1")),
					subBlock(a, 0, "free", knownvalue.Bool(false)),
					subBlock(a, 0, "in_use_count", knownvalue.Int64Exact(16)),
					subBlock(a, 0, "node_pool", knownvalue.StringExact(accName("acc-sub-blocks"))),
					subBlock(a, 1, "name", knownvalue.StringExact("sub-block-a2")),
					subBlock(a, 1, "free", knownvalue.Bool(true)),
					subBlock(a, 1, "node_pool", knownvalue.StringExact("")),
				},
			},
			{
				Config: accConfig(reservationData("gke_reservation_sub_blocks", "none", "block-zz", "", "")),
				ExpectError: wrapped("Cannot Read Reservation Sub-Blocks",
					`reservation block "block-zz" was not found in reservation "tpu7x-reservation"`),
			},
		},
	})
}
