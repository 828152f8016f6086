# Kueue + Topology Aware Scheduling over the stack's node pools: Kueue's
# slice admission check creates a Slice for each admitted workload.
resource "gke_kueue_slicing" "tpu" {
  name        = "tpu7x"
  node_pools  = [for p in gke_subblock_node_pool.pool : p.name]
  namespaces  = ["training", "serving"]
  sub_slicing = true
}

# Workloads carry this label to be queued.
output "queue_labels" {
  value = gke_kueue_slicing.tpu.queue_labels
}
