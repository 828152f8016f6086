# With Terraform 1.12+ or OpenTofu 1.12+: project, location and cluster
# default to the provider's.
import {
  to = gke_subblock_node_pool.pool
  identity = {
    project  = "my-project"
    location = "us-central1"
    cluster  = "ironwood"
    name     = "tpu7x-a1"
  }
}
