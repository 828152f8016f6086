# The Slices of the provider's cluster, but those Kueue made for its
# workloads (which cannot be imported: a warning names them).
list "gke_tpu_slice" "all" {
  provider         = gke
  include_resource = true
}

# All of them, Kueue's marked "not importable" in their display name.
list "gke_tpu_slice" "with_kueue" {
  provider = gke
  config {
    include_kueue_managed = true
  }
}
