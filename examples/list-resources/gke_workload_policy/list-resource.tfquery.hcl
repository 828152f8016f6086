# Every workload policy of the provider's region (terraform query), with the
# whole resource, so that -generate-config-out can write its configuration.
list "gke_workload_policy" "all" {
  provider         = gke
  include_resource = true
}

# The workload policies of another project and region.
list "gke_workload_policy" "europe" {
  provider = gke
  config {
    project = "my-project"
    region  = "europe-west4"
  }
}
