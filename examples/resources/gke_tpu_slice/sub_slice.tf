# A 2x2x2 sub-slice (2 hosts, 8 chips) inside one sub-block, chosen from
# the pool's free 2x2x2 partitions and packed best-fit. Needs GKE
# 1.36.0-gke.3712000 or later.
resource "gke_tpu_slice" "serving" {
  name     = "serve-small"
  topology = "2x2x2"

  partition_selector {
    node_pools = [gke_subblock_node_pool.serving.name]
  }
}

# Or list one partition of the sub-slice's shape.
data "gke_partitions" "free_halves" {
  shape          = "2x4x4"
  node_pools     = [gke_subblock_node_pool.serving.name]
  available_only = true
}

resource "gke_tpu_slice" "serving_large" {
  name          = "serve-large"
  topology      = "2x4x4"
  partition_ids = [data.gke_partitions.free_halves.ids[0]]
}
