# A multislice JobSet on the Kueue + Topology Aware Scheduling path: the
# slice-stack module makes the workload policy and a node pool per free
# sub-block (no slices: Kueue makes them), gke_kueue_slicing sets Kueue up
# for dynamic slicing over those pools, and the JobSet is rendered with the
# queue label and the slice-topology annotation. When Kueue admits it, its
# slice admission check creates one Slice per Job; the provider counts
# those Slices as holding their partitions and never touches them.
# Needs Kueue v0.15 or later and JobSet in the cluster. The provider is
# configured from the environment, for example the local sandbox's:
# source .cache/sandbox/sandbox.env
terraform {
  required_version = ">= 1.8"
  required_providers {
    gke = {
      source = "dynslice/gke"
    }
  }
}

provider "gke" {}

variable "zone" {
  description = "Zone of the reservation."
  type        = string
  default     = "us-central1-a"
}

variable "reservation" {
  description = "All Capacity mode TPU7x reservation."
  type        = string
  default     = "tpu7x-reservation"
}

variable "reservation_block" {
  description = "Block to build the stack in."
  type        = string
  default     = "block-a"
}

variable "namespace" {
  description = "Namespace of the JobSet; it gets a LocalQueue."
  type        = string
  default     = "default"
}

variable "slice_topology" {
  description = "Topology of each Job's slice."
  type        = string
  default     = "4x4x8"

  validation {
    condition     = provider::gke::validate_topology(var.slice_topology)
    error_message = "slice_topology must be a valid tpu7x topology."
  }
}

variable "slices" {
  description = "Number of slices (Jobs) of the JobSet."
  type        = number
  default     = 2
}

module "stack" {
  source = "../../modules/slice-stack"

  name              = "kueue"
  zone              = var.zone
  reservation       = var.reservation
  reservation_block = var.reservation_block
}

resource "gke_kueue_slicing" "tpu" {
  name       = "tpu7x"
  node_pools = keys(module.stack.node_pools)
  namespaces = [var.namespace]

  # Checked against the pools: each slice's partitions in one block, its
  # chips within the ClusterQueue's quota.
  workload_topologies = [var.slice_topology]
}

locals {
  # One pod per host, each with the host's 4 chips: checked at plan against
  # the topology's chips.
  wiring = provider::gke::kueue_workload(var.slice_topology, provider::gke::topology_hosts(var.slice_topology), 4)

  jobset = {
    apiVersion = "jobset.x-k8s.io/v1alpha2"
    kind       = "JobSet"
    metadata = {
      name      = "kueue-multislice"
      namespace = var.namespace
      # Kueue queues the JobSet; its admission check forms the slices.
      labels = gke_kueue_slicing.tpu.queue_labels
    }
    spec = {
      failurePolicy = { maxRestarts = 3 }
      replicatedJobs = [{
        name     = "slice-job"
        replicas = var.slices
        template = {
          spec = {
            parallelism    = local.wiring.pods
            completions    = local.wiring.pods
            backoffLimit   = 0
            completionMode = "Indexed"
            template = {
              metadata = { annotations = local.wiring.pod_annotations }
              spec = {
                # Only the accelerator: the slice does not exist before
                # Kueue admits the JobSet.
                nodeSelector = local.wiring.node_selector
                containers = [{
                  name  = "jax-worker"
                  image = "python:3.12"
                  env   = [{ name = "TPU_ACCELERATOR_TYPE", value = local.wiring.accelerator_type }]
                  resources = {
                    requests = local.wiring.tpu_resources
                    limits   = local.wiring.tpu_resources
                  }
                }]
              }
            }
          }
        }
      }]
    }
  }
}

output "kueue" {
  description = "The Kueue objects' name, quota and topology levels."
  value = {
    name            = gke_kueue_slicing.tpu.name
    tpu_quota       = gke_kueue_slicing.tpu.tpu_quota
    topology_levels = gke_kueue_slicing.tpu.topology_levels
  }
}

output "node_pools" {
  description = "The node pools and their partitions."
  value       = module.stack.node_pools
}

output "jobset_manifest" {
  description = "The JobSet (kubectl apply -f -); Kueue admits it when the quota allows."
  value       = yamlencode(local.jobset)
}
