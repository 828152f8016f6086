# One Kueue queue over two kinds of capacity: the reservation's sub-block
# node pools, where Kueue's slice admission check forms a Slice for each
# admitted workload, and flex-start node pools with queued provisioning
# (GKE's Dynamic Workload Scheduler, DWS), where Kueue's ProvisioningRequest
# admission check asks GKE for a workload's nodes and admits it once they
# are Provisioned. DWS nodes are a node pool's own, not partitions of the
# reservation: no Slice forms on them.
#
# The provider makes no flex-start pool. Create them first, outside this
# stack: on GKE with google-beta's google_container_node_pool (see the
# "Choosing a path" guide), or gcloud container node-pools create
# --flex-start --enable-queued-provisioning --enable-autoscaling
# --num-nodes=0 --reservation-affinity=none --tpu-topology=2x2x2; on the
# local sandbox, make demo does it through the sandbox's GKE API.
# Needs Kueue v0.15 or later, JobSet, and the ProvisioningRequest CRD
# (autoscaling.x-k8s.io/v1) in the cluster. The provider is configured from
# the environment, for example the local sandbox's:
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
  description = "Block to build the reservation's node pools in."
  type        = string
  default     = "block-a"
}

variable "sub_block_count" {
  description = "How many free sub-blocks of the block get a node pool (64 chips each)."
  type        = number
  default     = 1
}

variable "namespace" {
  description = "Namespace of the JobSets; it gets a LocalQueue."
  type        = string
  default     = "default"
}

variable "flex_node_pools" {
  description = "The flex-start node pools with queued provisioning, made beforehand, all of flex_topology."
  type        = list(string)
  default     = ["flex-2x2x2"]
}

variable "flex_topology" {
  description = "The flex-start pools' TPU topology."
  type        = string
  default     = "2x2x2"
}

variable "flex_tpu_quota" {
  description = "How many chips of DWS capacity the queue may hold at once."
  type        = number
  default     = 16
}

variable "slice_topology" {
  description = "Topology of the reservation JobSet's slice."
  type        = string
  default     = "4x4x4"
}

module "stack" {
  source = "../../modules/slice-stack"

  name              = "flex"
  zone              = var.zone
  reservation       = var.reservation
  reservation_block = var.reservation_block
  sub_block_count   = var.sub_block_count
}

resource "gke_kueue_slicing" "tpu" {
  name       = "tpu7x"
  node_pools = keys(module.stack.node_pools)
  namespaces = [var.namespace]

  workload_topologies = [var.slice_topology, var.flex_topology]

  # Checked at plan: the pools exist, are flex-start with queued
  # provisioning, of this topology; the quota holds whole workloads.
  overflow = {
    node_pools       = var.flex_node_pools
    topology         = var.flex_topology
    tpu_quota        = var.flex_tpu_quota
    max_run_duration = "24h"
  }
}

locals {
  reserved = provider::gke::kueue_workload(var.slice_topology, provider::gke::topology_hosts(var.slice_topology), 4)
  flex     = provider::gke::kueue_workload(var.flex_topology, provider::gke::topology_hosts(var.flex_topology), 4)

  # One JobSet of one Job; wiring picks the flavor: with the slice-topology
  # annotation the reservation (a Slice), without it the flex-start flavor.
  jobset = { for name, w in {
    "train-reserved" = { wiring = local.reserved, pod_annotations = local.reserved.pod_annotations, node_selector = local.reserved.node_selector }
    "train-flex"     = { wiring = local.flex, pod_annotations = local.flex.flex_start.pod_annotations, node_selector = local.flex.flex_start.node_selector }
    } : name => {
    apiVersion = "jobset.x-k8s.io/v1alpha2"
    kind       = "JobSet"
    metadata = {
      name      = name
      namespace = var.namespace
      labels    = gke_kueue_slicing.tpu.queue_labels
    }
    spec = {
      replicatedJobs = [{
        name     = "worker"
        replicas = 1
        template = {
          spec = {
            parallelism    = w.wiring.pods
            completions    = w.wiring.pods
            backoffLimit   = 0
            completionMode = "Indexed"
            template = {
              metadata = { annotations = merge(w.pod_annotations, {
                # The sandbox's kwok ends each pod after 5s.
                "pod-complete.stage.kwok.x-k8s.io/delay" = "5s"
              }) }
              spec = {
                nodeSelector = w.node_selector
                containers = [{
                  name  = "jax-worker"
                  image = "python:3.12"
                  env   = [{ name = "TPU_ACCELERATOR_TYPE", value = w.wiring.accelerator_type }]
                  resources = {
                    requests = w.wiring.tpu_resources
                    limits   = w.wiring.tpu_resources
                  }
                }]
              }
            }
          }
        }
      }]
    }
  } }
}

output "kueue" {
  description = "The queue's flavors and quotas."
  value = {
    name              = gke_kueue_slicing.tpu.name
    reservation_quota = gke_kueue_slicing.tpu.tpu_quota
    flex_flavor       = "${gke_kueue_slicing.tpu.name}-flex"
    flex_quota        = gke_kueue_slicing.tpu.overflow.tpu_quota
  }
}

output "reserved_jobset_manifest" {
  description = "A JobSet for the reservation: Kueue admits it there and a Slice forms (kubectl apply -f -)."
  value       = yamlencode(local.jobset["train-reserved"])
}

output "flex_jobset_manifest" {
  description = "A JobSet for the flex-start flavor: admitted once DWS provisions its nodes, no Slice (kubectl apply -f -)."
  value       = yamlencode(local.jobset["train-flex"])
}
