package provider

import (
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/compare"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// noClusterConfig is accConfig with a provider that names no cluster: it
// reaches Compute Engine and GKE's API only.
func noClusterConfig(resources string) string {
	return regexp.MustCompile(`(?m)^\s*cluster\s*=.*\n`).ReplaceAllString(accProviderConfig(), "") + "\n" + accTarget.translate(resources)
}

// reservationData is a data source of block (of tpu7x-reservation, in
// us-central1-a) named name: typ gke_reservation_sub_blocks, or
// gke_reservation_slots of the sub-block (of the whole block when
// subBlock is ""); read after dependsOn when it is set.
func reservationData(typ, name, block, subBlock, dependsOn string) string {
	lines := `
  zone              = "us-central1-a"
  reservation       = "tpu7x-reservation"
  reservation_block = "` + block + `"`
	if subBlock != "" {
		lines += `
  reservation_sub_block = "` + subBlock + `"`
	}
	if dependsOn != "" {
		lines += `
  depends_on = [` + dependsOn + `]`
	}
	return `
data "` + typ + `" "` + name + `" {` + lines + `
}
`
}

// listItem checks attr of item i of the list attribute list of the
// object at address.
func listItem(address, list string, i int, attr string, want knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectKnownValue(address, tfjsonpath.New(list).AtSliceIndex(i).AtMapKey(attr), want)
}

// With no cluster configured, gke_reservation_sub_blocks tells each
// sub-block's 4x4x4 topology state (AVAILABLE, or DEGRADED on a degraded or
// unhealthy host) and gke_reservation_slots a sub-block's 16 hosts, the
// unhealthy one UNAVAILABLE, no VM on any; with a pool on a sub-block, its
// topology is RUNNING and each of its slots runs the VM its node is named
// after; an unknown sub-block is an error naming the known ones.
func TestAccReservationSlotsDataSource(t *testing.T) {
	needSandboxInventory(t, "block-b's sub-blocks with a degraded and an unhealthy host (host 11 of sub-block-b3)")
	subBlock := func(i int, attr string, want knownvalue.Check) statecheck.StateCheck {
		return listItem("data.gke_reservation_sub_blocks.b", "sub_blocks", i, attr, want)
	}
	slot := func(address string, i int, attr string, want knownvalue.Check) statecheck.StateCheck {
		return listItem(address, "slots", i, attr, want)
	}
	b3 := "data.gke_reservation_slots.b3"
	a1 := "data.gke_reservation_slots.a1"
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config: noClusterConfig(reservationData("gke_reservation_sub_blocks", "b", "block-b", "", "") +
					reservationData("gke_reservation_slots", "b3", "block-b", "sub-block-b3", "") +
					reservationData("gke_reservation_slots", "block_b", "block-b", "", "")),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.gke_reservation_sub_blocks.b", tfjsonpath.New("available_sub_blocks"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("sub-block-b1"), knownvalue.StringExact("sub-block-b4"),
					})),
					subBlock(0, "topology", knownvalue.StringExact("4x4x4")),
					subBlock(0, "topology_state", knownvalue.StringExact("AVAILABLE")),
					subBlock(0, "in_use_host_count", knownvalue.Int64Exact(0)),
					subBlock(1, "topology_state", knownvalue.StringExact("DEGRADED")),
					subBlock(2, "topology_state", knownvalue.StringExact("DEGRADED")),
					subBlock(3, "topology_state", knownvalue.StringExact("AVAILABLE")),
					statecheck.ExpectKnownValue(b3, tfjsonpath.New("slots"), knownvalue.ListSizeExact(16)),
					statecheck.ExpectKnownValue(b3, tfjsonpath.New("unavailable_count"), knownvalue.Int64Exact(1)),
					slot(b3, 0, "sub_block", knownvalue.StringExact("sub-block-b3")),
					slot(b3, 0, "state", knownvalue.StringExact("ACTIVE")),
					slot(b3, 0, "instance", knownvalue.StringExact("")),
					slot(b3, 0, "node_name", knownvalue.StringExact("")),
					slot(b3, 0, "physical_host", knownvalue.StringRegexp(regexp.MustCompile(`^[0-9a-f]{16}$`))),
					slot(b3, 11, "name", knownvalue.StringExact("slot-11")),
					slot(b3, 11, "state", knownvalue.StringExact("UNAVAILABLE")),
					statecheck.ExpectKnownValue("data.gke_reservation_slots.block_b", tfjsonpath.New("slots"), knownvalue.ListSizeExact(64)),
					statecheck.ExpectKnownValue("data.gke_reservation_slots.block_b", tfjsonpath.New("unavailable_count"), knownvalue.Int64Exact(1)),
					slot("data.gke_reservation_slots.block_b", 16, "sub_block", knownvalue.StringExact("sub-block-b2")),
				},
			},
			{
				Config: poolConfig("acc-slots", "acc-slots", `reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a1"`) +
					reservationData("gke_reservation_slots", "a1", "block-a", "sub-block-a1", "gke_subblock_node_pool.np") +
					reservationData("gke_reservation_sub_blocks", "a", "block-a", "", "gke_subblock_node_pool.np"),
				ConfigStateChecks: []statecheck.StateCheck{
					listItem("data.gke_reservation_sub_blocks.a", "sub_blocks", 0, "topology_state", knownvalue.StringExact("RUNNING")),
					listItem("data.gke_reservation_sub_blocks.a", "sub_blocks", 0, "in_use_host_count", knownvalue.Int64Exact(16)),
					statecheck.ExpectKnownValue("data.gke_reservation_sub_blocks.a", tfjsonpath.New("available_sub_blocks"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringExact("sub-block-a2"), knownvalue.StringExact("sub-block-a3"), knownvalue.StringExact("sub-block-a4"),
					})),
					statecheck.ExpectKnownValue(a1, tfjsonpath.New("unavailable_count"), knownvalue.Int64Exact(0)),
					slot(a1, 0, "instance", knownvalue.StringRegexp(regexp.MustCompile(`^gke-.*`+regexp.QuoteMeta(accName("acc-slots"))+`-.*`))),
					statecheck.CompareValuePairs(a1, tfjsonpath.New("slots").AtSliceIndex(0).AtMapKey("instance"),
						a1, tfjsonpath.New("slots").AtSliceIndex(0).AtMapKey("node_name"), compare.ValuesSame()),
					statecheck.CompareValuePairs(a1, tfjsonpath.New("slots").AtSliceIndex(15).AtMapKey("instance"),
						a1, tfjsonpath.New("slots").AtSliceIndex(15).AtMapKey("node_name"), compare.ValuesSame()),
					statecheck.CompareValuePairs(a1, tfjsonpath.New("slots").AtSliceIndex(0).AtMapKey("instance"),
						a1, tfjsonpath.New("slots").AtSliceIndex(1).AtMapKey("instance"), compare.ValuesDiffer()),
				},
			},
			{
				Config: noClusterConfig(reservationData("gke_reservation_slots", "none", "block-a", "sub-block-a9", "")),
				ExpectError: wrapped("Cannot Read Reservation Slots",
					`reservation sub-block "sub-block-a9" was not found in block "block-a" of reservation "tpu7x-reservation"; its sub-blocks are: sub-block-a1, sub-block-a2, sub-block-a3, sub-block-a4`),
			},
		},
	})
}
