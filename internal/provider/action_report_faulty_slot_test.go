package provider

import (
	"context"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// gke_report_faulty names a host by its reservation slot: the host of the
// VM on it is reported, so the pool's partition is UNHEALTHY and the slot
// UNAVAILABLE; a slot that runs no VM, and a slot without its sub-block,
// are refused.
func TestAccActionReportFaultySlot(t *testing.T) {
	skipUnlessTerraform(t, "1.14", "actions")
	needSandboxControl(t, "keeps the reported host unhealthy, then repairs it")
	accFaults(t, sandbox.Faults{FaultyRepairMs: -1})
	t.Cleanup(func() {
		for h := range sandbox.HostsPerSubBlock {
			if err := accSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-a", "sub-block-a4", h, sandbox.HostHealthy); err != nil {
				t.Errorf("repairing host %d: %v", h, err)
			}
		}
	})
	pool := poolConfig("slot-policy", "slot-pool", `
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a4"`)
	action := func(subBlock, slot string) string {
		return `
resource "terraform_data" "report" {
  input            = gke_subblock_node_pool.np.name
  triggers_replace = ["` + subBlock + `", "` + slot + `"]
  lifecycle {
    action_trigger {
      events  = [after_create]
      actions = [action.gke_report_faulty.host]
    }
  }
}

action "gke_report_faulty" "host" {
  config {
    zone              = "us-central1-a"
    reservation       = "tpu7x-reservation"
    reservation_block = "block-a"
    sub_block         = "` + subBlock + `"
    slot              = "` + slot + `"
    fault_reasons     = [{ behavior = "CHIP_ERROR", description = "uncorrectable errors on chip 1" }]
  }
}
`
	}
	slots := `
data "gke_reservation_slots" "a4" {
  zone                  = "us-central1-a"
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a4"
  depends_on            = [terraform_data.report]
}
`
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
