package provider

import (
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// gke_kueue_slicing imports by its name: the node pools (in order), the
// namespaces, sub-slicing and the quota are read back from the objects,
// the imported state is the applied one, and the plan after the import is
// empty. A name with no objects is refused, saying so.
func TestAccKueueSlicingImport(t *testing.T) {
	needTarget(t)
	createNamespace(t, "team-i")
	createNamespace(t, "team-j")
	pools := slicePools("kqi", "tpu7x-reservation", "block-a", "sub-block-a3", "sub-block-a4")
	config := accConfig(pools + `
resource "gke_kueue_slicing" "k" {
  name        = "acc-import"
  node_pools  = [gke_subblock_node_pool.sub-block-a4.name, gke_subblock_node_pool.sub-block-a3.name]
  namespaces  = ["team-j", "team-i"]
  sub_slicing = false
}
`)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []tfresource.TestStep{
			{Config: config},
			{
				Config:            config,
				ResourceName:      "gke_kueue_slicing.k",
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				// An import block: the plan that imports it changes
				// nothing.
				Config:          config,
				ResourceName:    "gke_kueue_slicing.k",
				ImportState:     true,
				ImportStateKind: tfresource.ImportBlockWithID,
			},
			{
				Config:        config,
				ResourceName:  "gke_kueue_slicing.k",
				ImportState:   true,
				ImportStateId: "acc-none",
				ExpectError:   wrapped("Cannot Import Kueue Objects", `ClusterQueue acc-none does not exist: there is no gke_kueue_slicing "acc-none" to import`),
			},
		},
	})
}
