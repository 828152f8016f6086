# A workload policy and one node pool per free sub-block of a reservation
# block: steps 1 and 2 of a slice stack. The provider is configured from the
# environment (GOOGLE_PROJECT, GOOGLE_REGION, GOOGLE_CLUSTER, credentials),
# for example the local sandbox's: source .cache/sandbox/sandbox.env
terraform {
  required_version = ">= 1.8"
  required_providers {
    gke = {
      source = "dynslice/gke"
    }
  }
}

provider "gke" {}

variable "zone" {
  description = "Zone of the reservation."
  type        = string
  default     = "us-central1-a"
}

variable "reservation" {
  description = "All Capacity mode TPU7x reservation."
  type        = string
  default     = "tpu7x-reservation"
}

variable "reservation_block" {
  description = "Block whose free sub-blocks get a node pool each."
  type        = string
  default     = "block-a"
}

variable "name_prefix" {
  description = "Prefix of the node pool names; also how the stack recognizes its own pools."
  type        = string
  default     = "train-"
}

data "gke_reservation_sub_blocks" "block" {
  zone              = var.zone
  reservation       = var.reservation
  reservation_block = var.reservation_block
}

resource "gke_workload_policy" "dynamic_slicing" {
  name = "${var.name_prefix}dynamic-slicing"
}

resource "gke_subblock_node_pool" "pool" {
  for_each = toset([
    for s in data.gke_reservation_sub_blocks.block.sub_blocks : s.name
    if s.free || startswith(s.node_pool, var.name_prefix)
  ])

  name                  = "${var.name_prefix}${each.key}"
  zone                  = var.zone
  workload_policy       = gke_workload_policy.dynamic_slicing.name
  reservation           = var.reservation
  reservation_block     = var.reservation_block
  reservation_sub_block = each.key
}

output "partitions" {
  description = "Each node pool's partition: the IDs a Slice lists, and their state."
  value = {
    for sub_block, pool in gke_subblock_node_pool.pool : pool.name => {
      sub_block = sub_block
      id        = pool.partition_id
      state     = pool.partition_state
      ready     = pool.ready_node_count
    }
  }
}
