# Two 4x4x4 slices for a multislice JobSet: each Job of the JobSet lands on
# one slice, exclusively. The wiring comes from the slices' attributes.
resource "gke_tpu_slice" "multislice" {
  for_each = toset(["slice-0", "slice-1"])

  name     = "jax-${each.key}"
  topology = "4x4x4"
  partition_selector {
    node_pools = [for p in gke_subblock_node_pool.pool : p.name]
  }
}

locals {
  any_slice = gke_tpu_slice.multislice["slice-0"]

  jobset = {
    apiVersion = "jobset.x-k8s.io/v1alpha2"
    kind       = "JobSet"
    metadata = {
      name = "tpu-multislice-jax"
      annotations = {
        # Each Job gets a slice of its own.
        "alpha.jobset.sigs.k8s.io/exclusive-topology" = "cloud.google.com/gke-tpu-slice"
      }
    }
    spec = {
      replicatedJobs = [{
        name     = "slice-job"
        replicas = length(gke_tpu_slice.multislice)
        template = {
          spec = {
            parallelism    = local.any_slice.hosts
            completions    = local.any_slice.hosts
            backoffLimit   = 0
            completionMode = "Indexed"
            template = {
              metadata = { annotations = local.any_slice.pod_annotations }
              spec = {
                # Without the slice name: the exclusive-topology annotation
                # assigns the slices.
                nodeSelector = {
                  for k, v in local.any_slice.node_selector : k => v if k != "cloud.google.com/gke-tpu-slice"
                }
                containers = [{
                  name      = "jax-worker"
                  image     = "python:3.12"
                  resources = { limits = { "google.com/tpu" = 4 }, requests = { "google.com/tpu" = 4 } }
                }]
              }
            }
          }
        }
      }]
    }
  }
}

output "jobset_manifest" {
  value = yamlencode(local.jobset)
}
