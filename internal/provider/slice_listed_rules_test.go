package provider

import (
	"context"
	"errors"
	"fmt"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// noSlice checks that the Slice name was never made.
func noSlice(t *testing.T, name string) {
	t.Helper()
	if _, err := accEngine(t).Slices().ReadSlice(context.Background(), name); !errors.Is(err, kernel.ErrNotFound) {
		t.Errorf("Slice %s exists (%v): it should have been refused before it was made", name, err)
	}
}

// Listed partitions that break a rule no apply can change are an error at
// plan, naming the rule and what to write instead, and no Slice is made:
// partitions of two reservation blocks (the slice controller would fail
// the Slice, which stayed FAILED and tainted), and a partition of another
// shape (it used to be a warning, with advice about another slice).
func TestAccTPUSlice_listedPartitionRules(t *testing.T) {
	needSandboxInventory(t, "block-a and block-b are two reservation blocks of tpu7x-reservation")
	pools := slicePools("lr", "tpu7x-reservation", "block-a", "sub-block-a1") +
		subBlockPools("lr", "tpu7x-reservation", "block-b", "sub-block-b1")
	twoBlocks, otherShape := accName("lr-two-blocks"), accName("lr-other-shape")
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools)},
			{
				Config: accConfig(pools + `
resource "gke_tpu_slice" "two" {
  name          = "` + twoBlocks + `"
  topology      = "4x4x8"
  partition_ids = [gke_subblock_node_pool.sub-block-a1.partition_id, gke_subblock_node_pool.sub-block-b1.partition_id]
}
`),
				ExpectError: wrapped("Partitions Cannot Form This Slice", "the listed partitions are in 2 reservation blocks",
					"reservation block tpu7x-reservation/block-a", "reservation block tpu7x-reservation/block-b",
					"must all be in one reservation block", "List partitions of one block"),
			},
			{
				Config: accConfig(pools + `
resource "gke_tpu_slice" "shape" {
  name          = "` + otherShape + `"
  topology      = "2x2x2"
  partition_ids = [gke_subblock_node_pool.sub-block-a1.partition_id]
}
`),
				ExpectError: wrapped("Partitions Cannot Form This Slice", "is a 4x4x4 partition (node pool "+poolName("lr", "sub-block-a1")+")",
					"a 2x2x2 sub-slice lists 2x2x2 partitions", `data source gke_partitions with shape = "2x2x2"`),
			},
			{
				// Nothing was made: the state holds the pools alone (an
				// empty plan), and the cluster neither Slice.
				PreConfig: func() { noSlice(t, twoBlocks); noSlice(t, otherShape) },
				Config:    accConfig(pools),
				PlanOnly:  true,
			},
		},
	})
}

// A partition_selector.block that no node pool targets (nor pools of the
// same plan) is an error at plan that names the reservation blocks the
// pools target, as users write them (it used to pass the plan, and the
// apply's selection named physical block IDs); a block that pools of the
// same apply target (which the slice depends on) passes, and the slice
// forms there.
func TestAccTPUSlice_selectorBlockNoPool(t *testing.T) {
	needTarget(t)
	pools := slicePools("nb", "tpu7x-reservation", "block-a", "sub-block-a2")
	name := accName("nb-slice")
	slice := func(block string) string {
		return fmt.Sprintf(`
resource "gke_tpu_slice" "s" {
  name     = %q
  topology = "4x4x4"
  partition_selector {
    block = %q
  }
  depends_on = [gke_subblock_node_pool.sub-block-a2]
}
`, name, block)
	}
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: accConfig(pools + slice("block-z")),
				ExpectError: wrapped("No Node Pool Targets the Reservation Block", `partition_selector.block "block-z" names no reservation block`,
					"tpu7x-reservation/block-a", "write one of those", `gke_subblock_node_pool with reservation_block = "block-z"`, "depends_on"),
			},
			{
				PreConfig: func() { noSlice(t, name) },
				Config:    accConfig(pools + slice("block-a")),
			},
		},
	})
}

// A node pool whose zone is outside its cluster's region is an error at
// plan that names both and what to write (it used to fail at apply with
// "reservation … not found").
func TestAccSubBlockNodePool_zoneOutsideRegion(t *testing.T) {
	needTarget(t)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{{
			Config: accConfig(`
resource "gke_subblock_node_pool" "p" {
  name                  = "` + accName("zone-away") + `"
  zone                  = "us-east5-b"
  workload_policy       = "any-policy"
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a1"
}
`),
			ExpectError: wrapped("Zone Outside the Cluster's Region", `zone "us-east5-b" is in region "us-east5"`,
				"must be in its cluster's region", `such as "us-central1-a"`),
		}},
	})
}
