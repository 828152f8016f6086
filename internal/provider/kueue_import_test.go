package provider

import (
	"fmt"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
)

// gke_kueue_slicing imports by its name: the node pools (in order), the
// namespaces, sub-slicing and the quota are read back from the objects,
// the imported state is the applied one, and the plan after the import is
// empty. A name with no objects is refused, saying so.
func TestAccKueueSlicingImport(t *testing.T) {
	needTarget(t)
	teamI, teamJ := createNamespace(t, "team-i"), createNamespace(t, "team-j")
	name := accName("acc-import")
	pools := slicePools("kqi", "tpu7x-reservation", "block-a", "sub-block-a3", "sub-block-a4")
	config := accConfig(pools + fmt.Sprintf(`
resource "gke_kueue_slicing" "k" {
  name        = %q
  node_pools  = [gke_subblock_node_pool.sub-block-a4.name, gke_subblock_node_pool.sub-block-a3.name]
  namespaces  = [%q, %q]
  sub_slicing = false
}
`, name, teamJ, teamI))
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy: func(s *terraform.State) error {
			for _, r := range []string{"topologies", "resourceflavors", "admissionchecks", "clusterqueues"} {
				if kueueObject(t, r, "", name) != nil {
					return fmt.Errorf("%s %s is left after destroy", r, name)
				}
			}
			for _, ns := range []string{teamI, teamJ} {
				if kueueObject(t, "localqueues", ns, name) != nil {
					return fmt.Errorf("LocalQueue %s/%s is left after destroy", ns, name)
				}
			}
			return checkPoolsDestroyed(t)(s)
		},
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
