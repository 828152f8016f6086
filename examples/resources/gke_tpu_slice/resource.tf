# A 4x8x8 slice (4 partitions, 256 chips) from explicit partitions: the
# partition_id of four sub-block node pools.
resource "gke_tpu_slice" "explicit" {
  name     = "train-4x8x8"
  topology = "4x8x8"
  partition_ids = [
    gke_subblock_node_pool.a1.partition_id,
    gke_subblock_node_pool.a2.partition_id,
    gke_subblock_node_pool.a3.partition_id,
    gke_subblock_node_pool.a4.partition_id,
  ]
}

# The same from a selector over the pools: healthy partitions first, none
# used by another slice, all in one block. The choice is kept in
# partition_ids until the slice is replaced.
resource "gke_tpu_slice" "selected" {
  name     = "train-selected"
  topology = "4x8x8"

  partition_selector {
    node_pools = [for p in gke_subblock_node_pool.pool : p.name]
  }

  # Keep trying while a partition is being repaired, and accept a slice
  # that forms with degraded sub-blocks.
  retry_on_failure = true
  allow_degraded   = true

  timeouts {
    create = "45m"
  }
}

# The same from every pool that a workload policy places, without listing
# them: what a stack of many pools wants (each slice would otherwise carry
# the whole list in every plan). depends_on creates it after the pools.
resource "gke_tpu_slice" "by_policy" {
  name     = "train-by-policy"
  topology = "4x8x8"

  partition_selector {
    workload_policy = gke_workload_policy.dynamic_slicing.name
  }

  depends_on = [gke_subblock_node_pool.pool]
}

# Workload wiring for a Job on the slice.
output "wiring" {
  value = {
    node_selector    = gke_tpu_slice.selected.node_selector
    pod_annotations  = gke_tpu_slice.selected.pod_annotations
    accelerator_type = gke_tpu_slice.selected.accelerator_type # TPU_ACCELERATOR_TYPE
    parallelism      = gke_tpu_slice.selected.hosts            # one pod per host
  }
}
