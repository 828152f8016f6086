package provider

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
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

// With read_slots, gke_partitions tells each partition's hosts (in the
// order of its nodes) and their reservation slots: the slot of a host
// made unhealthy is UNAVAILABLE, in the 4x4x4 partition and in the one
// sub-slice partition that holds it; a pool that targets a block has its
// hosts' slots found through the sub-block its nodes are on. Without
// read_slots, hosts is null.
func TestAccPartitionsDataSource_slots(t *testing.T) {
	needSandboxControl(t, "a host of sub-block-a3 made unhealthy by the test")
	t.Cleanup(func() {
		if err := accSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-a", "sub-block-a3", 5, sandbox.HostHealthy); err != nil {
			t.Errorf("repairing host 5 of sub-block-a3: %v", err)
		}
	})
	named, anywhere := accName("acc-slots-named"), accName("acc-slots-block")
	pools := `
resource "gke_workload_policy" "p" {
  name = "` + accName("acc-slots-policy") + `"
}

resource "gke_subblock_node_pool" "named" {
  name                  = "` + named + `"
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.name
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a3"
}

resource "gke_subblock_node_pool" "anywhere" {
  name              = "` + anywhere + `"
  zone              = "us-central1-a"
  workload_policy   = gke_workload_policy.p.name
  reservation       = "tpu7x-reservation"
  reservation_block = "block-b"
}
`
	reads := `
data "gke_partitions" "named" {
  node_pools = [gke_subblock_node_pool.named.name]
  read_slots = true
}

data "gke_partitions" "quarters" {
  shape      = "2x2x4"
  node_pools = [gke_subblock_node_pool.named.name]
  read_slots = true
}

data "gke_partitions" "anywhere" {
  node_pools = [gke_subblock_node_pool.anywhere.name]
  read_slots = true
}

data "gke_partitions" "plain" {
  node_pools = [gke_subblock_node_pool.named.name]
}

output "unavailable" {
  value = [for h in data.gke_partitions.named.partitions[0].hosts : h.slot if h.slot_state == "UNAVAILABLE"]
}

output "unavailable_in_quarters" {
  value = [for p in data.gke_partitions.quarters.partitions : length([for h in p.hosts : h if h.slot_state == "UNAVAILABLE"])]
}

output "hosts_in_order" {
  value = jsonencode([for h in data.gke_partitions.named.partitions[0].hosts : h.node_name]) == jsonencode(data.gke_partitions.named.partitions[0].node_names)
}

output "anywhere_slotted" {
  value = alltrue([for h in data.gke_partitions.anywhere.partitions[0].hosts : h.slot != "" && h.physical_host != ""])
}
`
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{Config: accConfig(pools)},
			{
				PreConfig: func() {
					if err := accSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-a", "sub-block-a3", 5, sandbox.HostUnhealthy); err != nil {
						t.Fatal(err)
					}
				},
				Config: accConfig(pools + reads),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gke_partitions.named", tfjsonpath.New("partitions").AtSliceIndex(0).AtMapKey("hosts"), knownvalue.ListSizeExact(16)),
					hostOf("data.gke_partitions.named", 0, "physical_host", knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{16}$`))),
					hostOf("data.gke_partitions.named", 0, "slot", knownvalue.StringRegexp(regexp.MustCompile(`^slot-\d\d$`))),
					statecheck.ExpectKnownOutputValue("unavailable", knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("slot-05")})),
					statecheck.ExpectKnownOutputValue("unavailable_in_quarters", knownvalue.SetExact([]knownvalue.Check{
						knownvalue.Int64Exact(0), knownvalue.Int64Exact(0), knownvalue.Int64Exact(0), knownvalue.Int64Exact(1),
					})),
					statecheck.ExpectKnownOutputValue("hosts_in_order", knownvalue.Bool(true)),
					statecheck.ExpectKnownOutputValue("anywhere_slotted", knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("data.gke_partitions.plain", tfjsonpath.New("partitions").AtSliceIndex(0).AtMapKey("hosts"), knownvalue.Null()),
				},
			},
		},
	})
}

// hostOf checks attr of host i of the first partition of a
// gke_partitions data source.
func hostOf(address string, i int, attr string, want knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(address, tfjsonpath.New("partitions").AtSliceIndex(0).AtMapKey("hosts").AtSliceIndex(i).AtMapKey(attr), want)
}
