# A serving fleet beside a training slice. One sub-block is cut into
# sub-slices (2x4x4, 2x2x4, 2x2x2, 2x2x1: 15 of its 16 hosts), each serving
# a model; two other sub-blocks form one 4x4x8 super-slice for training.
# Sub-slices need GKE 1.36.0-gke.3712000 or later. The workloads are
# rendered from the slices' computed attributes. The provider is configured
# from the environment, for example the local sandbox's:
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
  description = "Block of the reservation that holds both the serving and the training sub-blocks."
  type        = string
  default     = "block-b"
}

variable "serving_sub_block" {
  description = "The sub-block cut into sub-slices for serving. Sub-slices use only their own hosts, so a sub-block whose 4x4x4 partition is DEGRADED (or INCOMPLETE) still serves from its healthy hosts."
  type        = string
  default     = "sub-block-b2"
}

variable "training_sub_blocks" {
  description = "The sub-blocks of the training super-slice: one per 4x4x4 partition of training_topology."
  type        = list(string)
  default     = ["sub-block-b1", "sub-block-b4"]
}

variable "training_topology" {
  description = "Topology of the training super-slice."
  type        = string
  default     = "4x4x8"

  validation {
    condition     = provider::gke::validate_topology(var.training_topology)
    error_message = "training_topology must be a valid tpu7x topology."
  }
}

variable "serving_slices" {
  description = "Serving sub-slices: name => topology (2x2x1, 2x2x2, 2x2x4 or 2x4x4). Together at most 16 hosts: one sub-block."
  type        = map(string)
  default = {
    "serve-large"  = "2x4x4"
    "serve-medium" = "2x2x4"
    "serve-small"  = "2x2x2"
    "serve-tiny"   = "2x2x1"
  }

  validation {
    condition     = alltrue([for t in values(var.serving_slices) : contains(["2x2x1", "2x2x2", "2x2x4", "2x4x4"], t)])
    error_message = "Every serving slice must be a sub-slice: 2x2x1, 2x2x2, 2x2x4 or 2x4x4."
  }

  validation {
    condition     = sum(concat([0], [for t in values(var.serving_slices) : provider::gke::topology_hosts(t)])) <= 16
    error_message = "The serving slices need more than the 16 hosts of one sub-block."
  }
}

resource "gke_workload_policy" "fleet" {
  name = "fleet-policy"
}

resource "gke_subblock_node_pool" "serving" {
  name                  = "serving-${var.serving_sub_block}"
  zone                  = var.zone
  workload_policy       = gke_workload_policy.fleet.name
  reservation           = var.reservation
  reservation_block     = var.reservation_block
  reservation_sub_block = var.serving_sub_block
}

resource "gke_subblock_node_pool" "training" {
  for_each = toset(var.training_sub_blocks)

  name                  = "training-${each.key}"
  zone                  = var.zone
  workload_policy       = gke_workload_policy.fleet.name
  reservation           = var.reservation
  reservation_block     = var.reservation_block
  reservation_sub_block = each.key

  lifecycle {
    precondition {
      condition     = length(var.training_sub_blocks) == provider::gke::topology_partitions(var.training_topology)
      error_message = "training_sub_blocks must have one sub-block per 4x4x4 partition of training_topology."
    }
  }
}

# Sub-slices pack best-fit into the serving sub-block: each one into the
# most-used part that has room, so that they all fit.
resource "gke_tpu_slice" "serving" {
  for_each = var.serving_slices

  name     = each.key
  topology = each.value
  partition_selector {
    node_pools = [gke_subblock_node_pool.serving.name]
  }
}

resource "gke_tpu_slice" "training" {
  name     = "train"
  topology = var.training_topology
  partition_selector {
    node_pools = [for p in gke_subblock_node_pool.training : p.name]
  }
}

# What is left of the serving sub-block for another small model.
data "gke_partitions" "serving_free" {
  shape          = "2x2x1"
  node_pools     = [gke_subblock_node_pool.serving.name]
  available_only = true

  depends_on = [gke_tpu_slice.serving]
}

locals {
  # One Indexed Job per slice: a pod on every host, pinned to the slice by
  # its node selector, told its accelerator type.
  jobs = merge(
    {
      for name, s in gke_tpu_slice.serving : name => {
        image = "vllm/vllm-tpu:latest"
        slice = s
      }
    },
    { "train" = { image = "python:3.12", slice = gke_tpu_slice.training } },
  )

  manifests = {
    for name, j in local.jobs : name => {
      apiVersion = "batch/v1"
      kind       = "Job"
      metadata   = { name = "${name}-workload" }
      spec = {
        parallelism    = j.slice.hosts
        completions    = j.slice.hosts
        completionMode = "Indexed"
        backoffLimit   = 0
        template = {
          metadata = { annotations = j.slice.pod_annotations }
          spec = {
            restartPolicy = "Never"
            nodeSelector  = j.slice.node_selector
            containers = [{
              name  = "worker"
              image = j.image
              env   = [{ name = "TPU_ACCELERATOR_TYPE", value = j.slice.accelerator_type }]
              resources = {
                requests = j.slice.tpu_resources
                limits   = j.slice.tpu_resources
              }
            }]
          }
        }
      }
    }
  }
}

output "slices" {
  description = "Every slice: state, topology, size and its partition."
  value = {
    for s in concat(values(gke_tpu_slice.serving), [gke_tpu_slice.training]) : s.name => {
      state            = s.state
      topology         = s.topology
      hosts            = s.hosts
      chips            = s.chips
      accelerator_type = s.accelerator_type
      partition_ids    = s.partition_ids
    }
  }
}

output "serving_partition" {
  description = "The serving sub-block's 4x4x4 partition, which the sub-slices share."
  value       = gke_subblock_node_pool.serving.partition_id
}

output "serving_free_hosts" {
  description = "2x2x1 partitions (hosts) of the serving sub-block that no slice holds."
  value       = data.gke_partitions.serving_free.ids
}

output "workload_manifests" {
  description = "One Job per slice (kubectl apply -f -)."
  value       = join("---\n", [for name in sort(keys(local.manifests)) : yamlencode(local.manifests[name])])
}
