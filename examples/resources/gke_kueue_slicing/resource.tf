# Kueue + Topology Aware Scheduling over the stack's node pools: Kueue's
# slice admission check creates a Slice for each admitted workload.
resource "gke_kueue_slicing" "tpu" {
  name        = "tpu7x"
  node_pools  = [for p in gke_subblock_node_pool.pool : p.name]
  namespaces  = ["training", "serving"]
  sub_slicing = true

  # The topologies the workloads will ask for: the plan fails on one that
  # the pools cannot hold (too few partitions in one block, too few chips,
  # a sub-slice without sub_slicing).
  workload_topologies = ["4x4x8", "2x2x2"]
}

# Workloads carry this label to be queued.
output "queue_labels" {
  value = gke_kueue_slicing.tpu.queue_labels
}
