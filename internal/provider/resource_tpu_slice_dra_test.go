package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// draPools are a policy, a node pool on GKE's TPU DRA driver (dra) and
// one on the device plugin (plain), in the healthy sub-blocks of block-b.
const draPools = `
resource "gke_workload_policy" "p" {
  name = "dra-policy"
}

resource "gke_subblock_node_pool" "dra" {
  name                  = "dra-b1"
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.name
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-b"
  reservation_sub_block = "sub-block-b1"
  node_labels           = { "cloud.google.com/gke-tpu-dra-driver" = "true" }
}

resource "gke_subblock_node_pool" "plain" {
  name                  = "dra-b4"
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.name
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-b"
  reservation_sub_block = "sub-block-b4"
}
`

// Two slices, one per device access, select from both pools: each gets
// the pool whose nodes offer its access, and its wiring says how a pod
// reaches the chips. A slice listing a partition of the other kind, and a
// device_access changed to one the nodes do not offer, are refused at
// plan, naming the partition and what to write; a DRA slice imports with
// its access read from its nodes.
func TestAccTPUSlice_deviceAccess(t *testing.T) {
	needSandboxInventory(t, "block-b's healthy sub-blocks, and the sandbox's TPU DRA driver on the nodes labelled for it")
	// The names of the run's objects (the Slices' ResourceClaimTemplates
	// are named after them).
	n := accNames("dra-policy", "dra-b1", "dra-b4", "dra-slice", "plain-slice", "listed-slice")
	slices := `
resource "gke_tpu_slice" "dra" {
  name          = "dra-slice"
  topology      = "4x4x4"
  device_access = "dra"
  partition_selector {
    node_pools = [gke_subblock_node_pool.plain.name, gke_subblock_node_pool.dra.name]
  }
}

resource "gke_tpu_slice" "plain" {
  name     = "plain-slice"
  topology = "4x4x4"
  partition_selector {
    node_pools = [gke_subblock_node_pool.plain.name, gke_subblock_node_pool.dra.name]
  }
  depends_on = [gke_tpu_slice.dra]
}

data "gke_partitions" "both" {
  node_pools = [gke_subblock_node_pool.dra.name, gke_subblock_node_pool.plain.name]
}
`
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkSlicesDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: accConfig(n.Replace(draPools + slices)),
				Check: func(st *terraform.State) error {
					// gke_partitions says which access each partition offers.
					a := st.RootModule().Resources["data.gke_partitions.both"].Primary.Attributes
					got := map[string]string{}
					for i := 0; i < 2; i++ {
						got[a[fmt.Sprintf("partitions.%d.node_pool", i)]] = a[fmt.Sprintf("partitions.%d.device_access", i)]
					}
					if got[n.Replace("dra-b1")] != "dra" || got[n.Replace("dra-b4")] != "device_plugin" {
						return fmt.Errorf("gke_partitions device_access by pool = %v, want dra-b1 dra and dra-b4 device_plugin", got)
					}
					return nil
				},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.CompareValuePairs("gke_tpu_slice.dra", tfjsonpath.New("partition_ids").AtSliceIndex(0),
						"gke_subblock_node_pool.dra", tfjsonpath.New("partition_id"), compare.ValuesSame()),
					statecheck.CompareValuePairs("gke_tpu_slice.plain", tfjsonpath.New("partition_ids").AtSliceIndex(0),
						"gke_subblock_node_pool.plain", tfjsonpath.New("partition_id"), compare.ValuesSame()),
					statecheck.ExpectKnownValue("gke_tpu_slice.dra", tfjsonpath.New("state"), knownvalue.StringExact("ACTIVE")),
					statecheck.ExpectKnownValue("gke_tpu_slice.dra", tfjsonpath.New("tpu_resources"), knownvalue.MapExact(map[string]knownvalue.Check{})),
					statecheck.ExpectKnownValue("gke_tpu_slice.dra", tfjsonpath.New("resource_claim_template"), knownvalue.StringRegexp(
						regexp.MustCompile(n.Replace(`^\{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":\{"name":"dra-slice-tpu"\}.*"allocationMode":"All","deviceClassName":"tpu.google.com"`)))),
					statecheck.ExpectKnownValue("gke_tpu_slice.dra", tfjsonpath.New("pod_resource_claims"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.MapExact(map[string]knownvalue.Check{"name": knownvalue.StringExact("tpu"), "resourceClaimTemplateName": knownvalue.StringExact(n.Replace("dra-slice-tpu"))}),
					})),
					statecheck.ExpectKnownValue("gke_tpu_slice.plain", tfjsonpath.New("device_access"), knownvalue.StringExact("device_plugin")),
					statecheck.ExpectKnownValue("gke_tpu_slice.plain", tfjsonpath.New("tpu_resources"), knownvalue.MapExact(map[string]knownvalue.Check{
						"google.com/tpu": knownvalue.StringExact("4"),
					})),
					statecheck.ExpectKnownValue("gke_tpu_slice.plain", tfjsonpath.New("resource_claim_template"), knownvalue.Null()),
					statecheck.ExpectKnownValue("gke_tpu_slice.plain", tfjsonpath.New("pod_resource_claims"), knownvalue.ListExact([]knownvalue.Check{})),
				},
			},
			{
				// The plain slice switched to DRA: its nodes have no driver.
				Config:      accConfig(n.Replace(draPools + strings.Replace(slices, "name     = \"plain-slice\"\n  topology = \"4x4x4\"", "name     = \"plain-slice\"\n  topology = \"4x4x4\"\n  device_access = \"dra\"", 1))),
				PlanOnly:    true,
				ExpectError: wrapped(`Device Access Not Offered by the Partitions`, `device_access = "dra", but partition`, n.Replace(`(node pool dra-b4)`)+` is on nodes without GKE's TPU DRA driver`, `Add node_labels = { "cloud.google.com/gke-tpu-dra-driver" = "true" }`),
			},
			{
				// A new slice listing the DRA pool's partition for the device
				// plugin (and, since the DRA slice holds it, also in use).
				Config: accConfig(n.Replace(draPools + slices + `
resource "gke_tpu_slice" "listed" {
  name          = "listed-slice"
  topology      = "4x4x4"
  partition_ids = [gke_subblock_node_pool.dra.partition_id]
}
`)),
				PlanOnly:    true,
				ExpectError: wrapped(`device_access = "device_plugin" (the default), but partition`, n.Replace(`(node pool dra-b1)`)+` is on nodes of GKE's TPU DRA driver`, `Set device_access = "dra"`),
			},
			{
				ResourceName:      "gke_tpu_slice.dra",
				ImportState:       true,
				ImportStateVerify: true,
				// The selector lives only in the configuration.
				ImportStateVerifyIgnore: []string{"partition_selector"},
			},
			{
				Config: accConfig(n.Replace(draPools + slices)),
				ConfigPlanChecks: tfresource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
}
