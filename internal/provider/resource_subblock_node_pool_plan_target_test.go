package provider

import (
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// A new pool's target is checked at plan (PlanOnly steps: nothing is
// applied), from Compute Engine's view of the block: a sub-block another
// pool holds is refused naming the block's available sub-blocks, two new
// pools of one configuration on one sub-block are refused, an unknown
// block is refused naming the known ones, and the pools that hold their
// sub-blocks plan no change. A pool replaced onto another target is
// checked as a new one: onto a sub-block another pool holds, an unknown
// sub-block or an unknown block, refused; onto a free sub-block, planned,
// and it claims that sub-block against the new pools of the plan.
func TestAccSubBlockNodePool_planTarget(t *testing.T) {
	needSandboxInventory(t, "block-a's four free sub-blocks, and the blocks block-a and block-b")
	holder, keeper := accName("acc-plan-holder"), accName("acc-plan-keeper")
	second, third := accName("acc-plan-second"), accName("acc-plan-third")
	pool := func(resource, name, block, subBlock string) string {
		target := `reservation_block     = "` + block + `"`
		if subBlock != "" {
			target += `
  reservation_sub_block = "` + subBlock + `"`
		}
		return `
resource "gke_subblock_node_pool" "` + resource + `" {
  name                  = "` + name + `"
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.name
  reservation           = "tpu7x-reservation"
  ` + target + `
}
`
	}
	// holder on block and subBlock, keeper on sub-block-a2.
	moved := func(block, subBlock string) string {
		return `
resource "gke_workload_policy" "p" {
  name = "` + accName("acc-plan-target") + `"
}
` + pool("holder", holder, block, subBlock) + pool("keeper", keeper, "block-a", "sub-block-a2")
	}
	held := moved("block-a", "sub-block-a1")
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(held)},
			{
				// The pools on their sub-blocks: no change.
				Config:   accConfig(held),
				PlanOnly: true,
			},
			{
				Config:   accConfig(held + pool("second", second, "block-a", "sub-block-a1")),
				PlanOnly: true,
				ExpectError: wrapped("Cannot Create Sub-Block Node Pool",
					`reservation sub-block "sub-block-a1" of block "block-a" is already in use by node pool `+holder,
					`available sub-blocks of the block: sub-block-a3, sub-block-a4`),
			},
			{
				Config:      accConfig(held + pool("second", second, "block-a", "sub-block-a3") + pool("third", third, "block-a", "sub-block-a3")),
				PlanOnly:    true,
				ExpectError: wrapped("Sub-Block Claimed Twice", "both target reservation sub-block", "reservationSubBlocks/sub-block-a3"),
			},
			{
				Config:      accConfig(held + pool("second", second, "block-zz", "")),
				PlanOnly:    true,
				ExpectError: wrapped("Cannot Create Sub-Block Node Pool", `reservation block "block-zz" was not found`, "its blocks are: block-a, block-b"),
			},
			{
				// holder replaced onto keeper's sub-block.
				Config:   accConfig(moved("block-a", "sub-block-a2")),
				PlanOnly: true,
				ExpectError: wrapped("Cannot Create Sub-Block Node Pool",
					`reservation sub-block "sub-block-a2" of block "block-a" is already in use by node pool `+keeper,
					`available sub-blocks of the block: sub-block-a3, sub-block-a4`),
			},
			{
				Config:   accConfig(moved("block-a", "sub-block-a9")),
				PlanOnly: true,
				ExpectError: wrapped("Cannot Create Sub-Block Node Pool", `reservation sub-block "sub-block-a9" was not found in block "block-a"`,
					"its sub-blocks are: sub-block-a1, sub-block-a2, sub-block-a3, sub-block-a4"),
			},
			{
				Config:      accConfig(moved("block-zz", "sub-block-a1")),
				PlanOnly:    true,
				ExpectError: wrapped("Cannot Create Sub-Block Node Pool", `reservation block "block-zz" was not found`, "its blocks are: block-a, block-b"),
			},
			{
				// holder replaced onto a free sub-block: planned.
				Config:             accConfig(moved("block-a", "sub-block-a3")),
				PlanOnly:           true,
				ExpectNonEmptyPlan: true,
			},
			{
				Config:      accConfig(moved("block-a", "sub-block-a3") + pool("second", second, "block-a", "sub-block-a3")),
				PlanOnly:    true,
				ExpectError: wrapped("Sub-Block Claimed Twice", "both target reservation sub-block", "reservationSubBlocks/sub-block-a3"),
			},
		},
	})
}
