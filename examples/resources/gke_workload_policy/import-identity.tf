# With Terraform 1.12+ or OpenTofu 1.12+: project and region default to the
# provider's.
import {
  to = gke_workload_policy.this
  identity = {
    project = "my-project"
    region  = "us-central1"
    name    = "tpu7x-policy"
  }
}
