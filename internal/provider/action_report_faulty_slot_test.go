package provider

import (
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// gke_report_faulty names a host by its reservation slot: the host of the
// VM on it is reported, so the pool's partition is UNHEALTHY and the slot
// UNAVAILABLE; a slot that runs no VM, and a slot without its sub-block,
// are refused.
func TestAccActionReportFaultySlot(t *testing.T) {
	needHostReports(t, "block-a", "sub-block-a4")
	pool := poolConfig("slot-policy", "slot-pool", `
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a4"`)
	action := func(subBlock, slot string) string {
		return reportAfterCreate("host", "gke_subblock_node_pool.np.name", []string{subBlock, slot}, `
    reservation       = "tpu7x-reservation"
    reservation_block = "block-a"
    sub_block         = "`+subBlock+`"
    slot              = "`+slot+`"
    fault_reasons     = [{ behavior = "CHIP_ERROR", description = "uncorrectable errors on chip 1" }]`)
	}
	slots := reservationData("gke_reservation_slots", "a4", "block-a", "sub-block-a4", "terraform_data.report")
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{
			{
				Config:      pool + action("sub-block-a3", "slot-02"),
				ExpectError: wrapped("Cannot Report Faulty Hardware", "reservation slot slot-02 of sub-block tpu7x-reservation/block-a/sub-block-a3", "runs no VM"),
			},
			{Config: pool + action("sub-block-a4", "slot-05")},
			{
				Config: pool + action("sub-block-a4", "slot-05") + slots,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("gke_subblock_node_pool.np", tfjsonpath.New("partition_state"), knownvalue.StringExact("UNHEALTHY")),
					statecheck.ExpectKnownValue("data.gke_reservation_slots.a4", tfjsonpath.New("unavailable_count"), knownvalue.Int64Exact(1)),
					statecheck.ExpectKnownValue("data.gke_reservation_slots.a4", tfjsonpath.New("slots").AtSliceIndex(5).AtMapKey("state"), knownvalue.StringExact("UNAVAILABLE")),
				},
			},
		},
	})
}
