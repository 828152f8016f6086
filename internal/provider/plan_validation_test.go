package provider

import (
	"strings"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// withProvider adds an empty provider block to a configuration that has
// none of its own.
func withProvider(config string) string {
	if strings.Contains(config, `provider "gke"`) {
		return config
	}
	return `provider "gke" {}` + "\n" + config
}

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
		"malformed timeout": {`resource "gke_tpu_slice" "s" {
  name          = "s"
  topology      = "4x4x4"
  partition_ids = ["0123456789abcdef0123456789abcdef"]
  timeouts {
    create = "ten minutes"
  }
}`, `timeouts.create is "ten minutes": remove the spaces; a timeout must be a positive duration: a number and a unit, such as "90s", "30m", "1h" or "1h30m"`},
		"timeout without a unit": {`resource "gke_workload_policy" "w" {
  name = "w"
  timeouts {
    create = "10"
  }
}`, `timeouts.create is "10": not a duration; a timeout must be a positive duration: a number and a unit`},
		"upper-case topology": {`resource "gke_tpu_slice" "s" {
  name          = "s"
  topology      = "4X4X4"
  partition_ids = ["0123456789abcdef0123456789abcdef"]
}`, `uses an upper-case X: use a lower-case x (write "4x4x4")`},
		"topology with a space": {`resource "gke_tpu_slice" "s" {
  name          = "s"
  topology      = " 4x4x4"
  partition_ids = ["0123456789abcdef0123456789abcdef"]
}`, `has spaces: remove them (write "4x4x4")`},
		"empty topology": {`resource "gke_tpu_slice" "s" {
  name          = "s"
  topology      = ""
  partition_ids = ["0123456789abcdef0123456789abcdef"]
}`, `topology "": the value is empty`},
		"empty node pool list": {`resource "gke_tpu_slice" "s" {
  name     = "s"
  topology = "4x4x4"
  partition_selector {
    node_pools = [for p in [] : p]
  }
}`, `partition_selector.node_pools is an empty list: it names no pool to select from`},
		"provider location": {`provider "gke" {
  location = "us-central1-a-b"
}
resource "gke_workload_policy" "w" {
  name = "w"
}`, `location: "us-central1-a-b" is not a Google Cloud location name: write a region such as "us-central1" or a zone such as "us-central1-a"`},
		"pool location": {`resource "gke_subblock_node_pool" "p" {
  name              = "p"
  location          = "us-central1-a-b"
  workload_policy   = "w"
  reservation       = "r"
  reservation_block = "b"
}`, `location: "us-central1-a-b" is not a Google Cloud location name`},
		"pool zone is a region": {`resource "gke_subblock_node_pool" "p" {
  name              = "p"
  zone              = "us-central1"
  workload_policy   = "w"
  reservation       = "r"
  reservation_block = "b"
}`, `zone: "us-central1" is a region, not a zone`},
		"policy region is a zone": {`resource "gke_workload_policy" "w" {
  name   = "w"
  region = "us-central1-a"
}`, `region: "us-central1-a" is a zone, not a region: write its region, "us-central1"`},
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
					Config:      withProvider(tc.config),
					PlanOnly:    true,
					ExpectError: wrapped(tc.want),
				}},
			})
		})
	}
}
