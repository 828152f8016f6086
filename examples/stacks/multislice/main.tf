# A multislice training stack: one slice-stack module over a reservation
# block makes the workload policy, a node pool per free sub-block and two
# slices, and the JobSet that trains across them is rendered from the
# slices' outputs. The provider is configured from the environment, for
# example the local sandbox's: source .cache/sandbox/sandbox.env
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

variable "slice_topology" {
  description = "Topology of each of the two slices."
  type        = string
  default     = "4x4x8"
}

module "stack" {
  source = "../../modules/slice-stack"

  name              = "train"
  zone              = var.zone
  reservation       = var.reservation
  reservation_block = var.reservation_block
  slices = {
    "train-slice-0" = { topology = var.slice_topology }
    "train-slice-1" = { topology = var.slice_topology }
  }
}

locals {
  slice = module.stack.slices["train-slice-0"]

  jobset = {
    apiVersion = "jobset.x-k8s.io/v1alpha2"
    kind       = "JobSet"
    metadata = {
      name = "multislice-training"
      annotations = {
        # One Job per slice, each on a slice of its own.
        "alpha.jobset.sigs.k8s.io/exclusive-topology" = "cloud.google.com/gke-tpu-slice"
      }
    }
    spec = {
      failurePolicy = { maxRestarts = 3 }
      replicatedJobs = [{
        name     = "slice-job"
        replicas = length(module.stack.slices)
        template = {
          spec = {
            parallelism    = local.slice.hosts
            completions    = local.slice.hosts
            backoffLimit   = 0
            completionMode = "Indexed"
            template = {
              metadata = { annotations = local.slice.pod_annotations }
              spec = {
                hostNetwork = true
                dnsPolicy   = "ClusterFirstWithHostNet"
                # The slice name is left out: the exclusive-topology
                # annotation assigns each Job its slice.
                nodeSelector = {
                  for k, v in local.slice.node_selector : k => v if k != "cloud.google.com/gke-tpu-slice"
                }
                containers = [{
                  name  = "jax-worker"
                  image = "python:3.12"
                  env   = [{ name = "TPU_ACCELERATOR_TYPE", value = local.slice.accelerator_type }]
                  ports = [{ containerPort = 8471 }]
                  # Requesting google.com/tpu is also what lets the pods onto
                  # TPU nodes: GKE adds the toleration of their
                  # google.com/tpu=present:NoSchedule taint to such pods.
                  resources = {
                    requests = local.slice.tpu_resources
                    limits   = local.slice.tpu_resources
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

output "slices" {
  description = "The slices: state, topology, partitions and wiring."
  value       = module.stack.slices
}

output "node_pools" {
  description = "The node pools and their partitions."
  value       = module.stack.node_pools
}

output "jobset_manifest" {
  description = "The JobSet manifest for the slices (kubectl apply -f -)."
  value       = yamlencode(local.jobset)
}
