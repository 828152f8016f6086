package provider

import (
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// A partition_selector that cannot be met for a reason already known (an
// unhealthy host, which has no node, makes the only partition INCOMPLETE;
// the partition is held by another slice) fails on its first try when every pool of the selection is
// created with its nodes registered, saying that waiting would not change
// it, instead of retrying for the settle time.
func TestAccSelectionFailsAtOnceWhenFinal(t *testing.T) {
	needSandboxInventory(t, "sub-block-b3 with an unhealthy host")
	unhealthy := slicePools("ffu", "tpu7x-reservation", "block-b", "sub-block-b3") + `
resource "gke_tpu_slice" "s" {
  name     = "` + accName("ffu") + `"
  topology = "4x4x4"
  partition_selector {
    node_pools = [gke_subblock_node_pool.sub-block-b3.name]
  }
}
`
	held := slicePools("ffh", "tpu7x-reservation", "block-a", "sub-block-a3") + `
resource "gke_tpu_slice" "holder" {
  name          = "` + accName("ffh-holder") + `"
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.sub-block-a3.partition_id]
}

resource "gke_tpu_slice" "grab" {
  name       = "` + accName("ffh-grab") + `"
  topology   = "4x4x4"
  depends_on = [gke_tpu_slice.holder]
  partition_selector {
    node_pools = [gke_subblock_node_pool.sub-block-a3.name]
  }
}
`
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				// The pool is created by this apply, then the selection.
				Config: accConfig(unhealthy),
				ExpectError: wrapped("Cannot Select Partitions", "node pools "+poolName("ffu", "sub-block-b3"), "skipped 1 INCOMPLETE",
					"every node pool of the selection is created and its nodes have registered, so waiting would not change this"),
			},
			{
				Config: accConfig(held),
				ExpectError: wrapped("Cannot Select Partitions", "skipped 1 used by slice "+accName("ffh-holder"),
					"every node pool of the selection is created and its nodes have registered, so waiting would not change this"),
			},
		},
	})
}
