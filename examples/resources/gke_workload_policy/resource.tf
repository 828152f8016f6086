# The workload policy dynamic slicing needs: HIGH_THROUGHPUT, accelerator
# topology 4x4x4 and mode PROVISION_ONLY are the defaults.
resource "gke_workload_policy" "dynamic_slicing" {
  name        = "ironwood-dynamic-slicing"
  region      = "us-central1"
  description = "Places one TPU7x sub-block node pool per 4x4x4 partition"
}
