# The node pools of the provider's cluster that target a reservation block
# or sub-block (its other pools are left out).
list "gke_subblock_node_pool" "all" {
  provider         = gke
  include_resource = true
}

# Those of another cluster.
list "gke_subblock_node_pool" "training" {
  provider = gke
  config {
    location = "us-central1"
    cluster  = "training"
  }
}
