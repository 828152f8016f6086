data "gke_reservation_sub_blocks" "block_a" {
  zone              = "us-central1-a"
  reservation       = "tpu7x-reservation"
  reservation_block = "block-a"
}

resource "gke_workload_policy" "dynamic_slicing" {
  name = "ironwood-dynamic-slicing"
}

# One node pool per free sub-block. The filter also keeps the sub-blocks this
# stack's own pools ("train-...") occupy, so the set does not change after
# apply and the next plan is empty.
resource "gke_subblock_node_pool" "pool" {
  for_each = toset([
    for s in data.gke_reservation_sub_blocks.block_a.sub_blocks : s.name
    if s.free || startswith(s.node_pool, "train-")
  ])

  name                  = "train-${each.key}"
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.dynamic_slicing.name
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = each.key
}

output "sub_block_count" {
  value = data.gke_reservation_sub_blocks.block_a.sub_block_count
}

# The sub-blocks whose 4x4x4 topology Compute Engine reports AVAILABLE: free
# and healthy. A pool aimed at another is refused at plan.
output "available_sub_blocks" {
  value = data.gke_reservation_sub_blocks.block_a.available_sub_blocks
}
