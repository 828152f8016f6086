terraform {
  required_version = ">= 1.8"
  required_providers {
    gke = {
      source = "dynslice/gke"
    }
  }
}

data "gke_reservation_sub_blocks" "block" {
  project           = var.project_id
  zone              = var.zone
  reservation       = var.reservation
  reservation_block = var.reservation_block

  # Read before anything is planned, so that a missing or bad name stops
  # the plan here, with this message.
  lifecycle {
    precondition {
      condition     = local.name_ok
      error_message = "The stack's name (name, or deployment_name when name is not set) must be 1-20 lower-case letters, digits or hyphens, starting with a letter and not ending with a hyphen: set name."
    }
  }
}

locals {
  # The stack's name: name, or the toolkit's deployment_name. A missing or
  # bad one fails the data source's precondition; until then a stand-in
  # keeps the names below valid.
  given_name  = var.name != null ? var.name : var.deployment_name
  name_ok     = try(can(regex("^[a-z]([-a-z0-9]{0,18}[a-z0-9])?$", local.given_name)), false)
  name        = local.name_ok ? local.given_name : "invalid-name"
  pool_prefix = "${local.name}-"

  # The node pools' cluster: cluster_id, or the provider's.
  cluster = var.cluster_id == null ? null : regex("^projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)/clusters/(?P<name>[^/]+)$", var.cluster_id)

  # Free sub-blocks, and the ones this stack's pools already hold, so that
  # the set does not change after apply.
  available = sort([
    for s in data.gke_reservation_sub_blocks.block.sub_blocks : s.name
    if s.free || startswith(s.node_pool, local.pool_prefix)
  ])
  chosen     = var.sub_blocks == null ? local.available : sort(var.sub_blocks)
  sub_blocks = var.sub_block_count == null ? local.chosen : slice(local.chosen, 0, min(var.sub_block_count, length(local.chosen)))
  # The pools' for_each, a map from each sub-block's name to itself, made
  # once: Terraform evaluates a resource's for_each again for each of its
  # instances, and a set (toset) is sorted anew each time. At 144 pools
  # that was a fifth of Terraform's CPU in a plan. The keys, and so the
  # pools' addresses, are those of the set.
  pool_sub_blocks = { for s in local.sub_blocks : s => s }

  # Super-slices take whole sub-blocks; sub-slices (2x2x1 to 2x4x4) are
  # packed together into as few sub-blocks as their chips fill.
  sub_slice_shapes  = ["2x2x1", "2x2x2", "2x2x4", "2x4x4"]
  super_partitions  = sum(concat([0], [for s in values(var.slices) : provider::gke::topology_partitions(s.topology) if !contains(local.sub_slice_shapes, s.topology)]))
  sub_slice_chips   = sum(concat([0], [for s in values(var.slices) : provider::gke::topology_chips(s.topology) if contains(local.sub_slice_shapes, s.topology)]))
  partitions_needed = local.super_partitions + ceil(local.sub_slice_chips / 64)
  chips_needed      = sum(concat([0], [for s in values(var.slices) : provider::gke::topology_chips(s.topology)]))
}

resource "gke_workload_policy" "this" {
  name    = "${local.name}-policy"
  project = var.project_id
  region  = var.region

  lifecycle {
    precondition {
      condition = local.partitions_needed <= length(local.sub_blocks)
      error_message = format(
        "The slices need %d partitions (%d chips), but the stack has %d sub-block(s) (%d chips) in block %s: ask for smaller slices or more sub-blocks.",
        local.partitions_needed, local.chips_needed, length(local.sub_blocks), length(local.sub_blocks) * 64, var.reservation_block,
      )
    }
    precondition {
      condition     = length(setsubtract(local.chosen, [for s in data.gke_reservation_sub_blocks.block.sub_blocks : s.name])) == 0
      error_message = "Some requested sub-blocks are not in block ${var.reservation_block}: ${join(", ", setsubtract(local.chosen, [for s in data.gke_reservation_sub_blocks.block.sub_blocks : s.name]))}."
    }
  }
}

resource "gke_subblock_node_pool" "pool" {
  for_each = local.pool_sub_blocks

  name                  = "${local.pool_prefix}${each.key}"
  project               = var.cluster_id != null ? local.cluster.project : var.project_id
  location              = try(local.cluster.location, null)
  cluster               = try(local.cluster.name, null)
  zone                  = var.zone
  workload_policy       = gke_workload_policy.this.name
  reservation           = var.reservation
  reservation_block     = var.reservation_block
  reservation_sub_block = each.key
  wait_for_partition    = var.wait_for_partition
  node_labels           = var.device_access == "dra" ? { "cloud.google.com/gke-tpu-dra-driver" = "true" } : null
  resource_labels       = length(var.labels) > 0 ? var.labels : null
}

resource "gke_tpu_slice" "slice" {
  for_each = var.slices

  name           = each.key
  topology       = each.value.topology
  allow_degraded = each.value.allow_degraded
  device_access  = var.device_access

  # The stack's pools are the ones its workload policy places: naming the
  # policy, not each pool, keeps a 144-pool stack's slices small to plan.
  # depends_on creates the slices after the pools and deletes them first.
  partition_selector {
    workload_policy = gke_workload_policy.this.name
    allow_degraded  = each.value.allow_degraded
  }

  depends_on = [gke_subblock_node_pool.pool]
}
