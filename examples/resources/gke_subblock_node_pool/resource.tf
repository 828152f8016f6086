resource "gke_workload_policy" "dynamic_slicing" {
  name = "ironwood-dynamic-slicing"
}

# Target one sub-block: 16 tpu7x-standard-4t nodes, one 4x4x4 partition.
resource "gke_subblock_node_pool" "sub_block_1" {
  name                  = "train-sub-block-1"
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.dynamic_slicing.self_link
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a1"

  # Wait until all 16 nodes are up and the partition is HEALTHY.
  wait_for_partition = "HEALTHY"

  # Kubernetes labels on the nodes.
  node_labels = {
    team = "training"
  }

  # GCP labels on the VMs, for billing and inventory: changed in place.
  resource_labels = {
    cost-center = "ml-research"
  }

  timeouts {
    create = "90m"
  }
}

# Or target the block: GKE places the pool in an available sub-block,
# reported in sub_block.
resource "gke_subblock_node_pool" "any_in_block" {
  name              = "train-block-a"
  zone              = "us-central1-a"
  workload_policy   = gke_workload_policy.dynamic_slicing.name
  reservation       = "tpu7x-reservation"
  reservation_block = "block-a"
}

output "partition" {
  value = {
    id    = gke_subblock_node_pool.sub_block_1.partition_id
    state = gke_subblock_node_pool.sub_block_1.partition_state
  }
}
