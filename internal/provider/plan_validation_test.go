package provider

import (
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// Mistakes caught before any API call: at validate or plan time, with no
// cloud, no sandbox and no provider configuration.
func TestPlanTimeValidation(t *testing.T) {
	cases := map[string]struct{ config, want string }{
		"negative slice timeout": {`resource "gke_tpu_slice" "s" {
  name          = "s"
  topology      = "4x4x4"
  partition_ids = ["0123456789abcdef0123456789abcdef"]
  timeouts {
    create = "-5m"
  }
}`, `timeouts.create is "-5m": a timeout must be a positive duration`},
		"zero node pool timeout": {`resource "gke_subblock_node_pool" "p" {
  name              = "p"
  workload_policy   = "w"
  reservation       = "r"
  reservation_block = "b"
  timeouts {
    delete = "0s"
  }
}`, `timeouts.delete is "0s": a timeout must be a positive duration`},
		"negative workload policy timeout": {`resource "gke_workload_policy" "w" {
  name = "w"
  timeouts {
    delete = "-1h"
  }
}`, `timeouts.delete is "-1h": a timeout must be a positive duration`},
		"machine type": {`resource "gke_subblock_node_pool" "p" {
  name              = "p"
  workload_policy   = "w"
  reservation       = "r"
  reservation_block = "b"
  machine_type      = "ct6e-standard-4t"
}`, `machine_type value must be one of: ["tpu7x-standard-4t"]`},
		"workload policy type": {`resource "gke_workload_policy" "w" {
  name = "w"
  type = "LOW_LATENCY"
}`, `type value must be one of`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tfresource.UnitTest(t, tfresource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				Steps: []tfresource.TestStep{{
					Config:      `provider "gke" {}` + "\n" + tc.config,
					PlanOnly:    true,
					ExpectError: wrapped(tc.want),
				}},
			})
		})
	}
}
