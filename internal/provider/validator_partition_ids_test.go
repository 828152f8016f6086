package provider

import (
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

func TestPartitionIDsValidator(t *testing.T) {
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: probeProviderFactories,
		Steps: []tfresource.TestStep{{
			Config: `
resource "gke_validator_probe" "p" {
  topology      = "4x8x8"
  partition_ids = ["p0", "p1", "p2", "p3"]
}`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("gke_validator_probe.p", tfjsonpath.New("partition_ids"), knownvalue.ListSizeExact(4)),
			},
		}},
	})
}

func TestPartitionIDsValidator_Rejected(t *testing.T) {
	cases := map[string]struct {
		config string
		text   []string
	}{
		"too few": {`
resource "gke_validator_probe" "p" {
  topology      = "4x8x8"
  partition_ids = ["p0", "p1", "p2"]
}`, []string{"Invalid Partition IDs", `topology "4x8x8" needs exactly 4 partition(s) (4×8×8 chips / 64 chips per partition), but 3 partition ID(s) are given; add 1 partition ID(s), or use a topology of 3 partition(s): 4x4x12`}},
		"too many": {`
resource "gke_validator_probe" "p" {
  topology      = "4x4x4"
  partition_ids = ["p0", "p1"]
}`, []string{`needs exactly 1 partition(s) (4×4×4 chips / 64 chips per partition), but 2 partition ID(s) are given; remove 1 partition ID(s), or use a topology of 2 partition(s): 4x4x8`}},
		"duplicate": {`
resource "gke_validator_probe" "p" {
  topology      = "4x4x8"
  partition_ids = ["p0", "p0"]
}`, []string{`partition ID "p0" is listed twice (indexes 0 and 1)`}},
		"empty": {`
resource "gke_validator_probe" "p" {
  topology      = "4x4x8"
  partition_ids = ["p0", ""]
}`, []string{`partition ID at index 1 is empty`}},
		// The count is known at plan time even when the IDs come from
		// resources not yet created.
		"too few, IDs unknown": {`
resource "terraform_data" "ids" { input = ["p0", "p1"] }
resource "gke_validator_probe" "p" {
  topology      = "4x8x8"
  partition_ids = [terraform_data.ids.output[0], terraform_data.ids.output[1]]
}`, []string{`needs exactly 4 partition(s) (4×8×8 chips / 64 chips per partition), but 2 partition ID(s) are given`}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tfresource.UnitTest(t, tfresource.TestCase{
				ProtoV6ProviderFactories: probeProviderFactories,
				Steps:                    []tfresource.TestStep{{Config: tc.config, ExpectError: wrapped(tc.text...)}},
			})
		})
	}
}

// With an invalid topology only the topology error is shown: the partition
// count is not checked against a topology that does not exist.
func TestPartitionIDsValidator_InvalidTopologyReportedOnce(t *testing.T) {
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: probeProviderFactories,
		Steps: []tfresource.TestStep{{
			Config: `
resource "gke_validator_probe" "p" {
  topology      = "4x8x4"
  partition_ids = ["p0"]
}`,
			ExpectError: wrapped("Invalid Topology", `topology "4x8x4": dimensions must be in non-decreasing order`),
		}},
	})
}
