# A stack on GKE's TPU DRA driver: the node pools carry the node label
# cloud.google.com/gke-tpu-dra-driver=true (the driver stands in for GKE's
# TPU device plugin on their nodes), the slice has device_access = "dra",
# and each pod of the Job claims every chip of its host through a
# ResourceClaim made from the slice's ResourceClaimTemplate. The provider
# is configured from the environment, for example the local sandbox's:
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
  default     = "tpu7x-reservation-2"
}

variable "reservation_block" {
  description = "Block to build the stack in."
  type        = string
  default     = "block-c"
}

module "stack" {
  source = "../../modules/slice-stack"

  name              = "dra"
  zone              = var.zone
  reservation       = var.reservation
  reservation_block = var.reservation_block
  device_access     = "dra"
  slices = {
    "dra-slice" = { topology = "4x4x4" }
  }
}

locals {
  slice = module.stack.slices["dra-slice"]

  job = {
    apiVersion = "batch/v1"
    kind       = "Job"
    metadata   = { name = "dra-workload" }
    spec = {
      parallelism    = local.slice.hosts
      completions    = local.slice.hosts
      completionMode = "Indexed"
      backoffLimit   = 0
      template = {
        metadata = { annotations = local.slice.pod_annotations }
        spec = {
          restartPolicy = "Never"
          nodeSelector  = local.slice.node_selector
          # DRA nodes still carry the google.com/tpu=present:NoSchedule
          # taint, and no google.com/tpu request brings its toleration.
          tolerations    = [{ key = "google.com/tpu", operator = "Exists", effect = "NoSchedule" }]
          resourceClaims = local.slice.pod_resource_claims
          containers = [{
            name  = "worker"
            image = "python:3.12"
            env   = [{ name = "TPU_ACCELERATOR_TYPE", value = local.slice.accelerator_type }]
            resources = {
              claims = [for c in local.slice.pod_resource_claims : { name = c.name }]
            }
          }]
        }
      }
    }
  }
}

output "slices" {
  description = "The slice: state, topology, partitions and wiring."
  value       = module.stack.slices
}

output "node_pools" {
  description = "The node pools and their partitions."
  value       = module.stack.node_pools
}

output "workload_manifests" {
  description = "The ResourceClaimTemplate, then the Job that claims through it (kubectl apply -f -)."
  value       = join("---\n", [yamlencode(jsondecode(local.slice.resource_claim_template)), yamlencode(local.job)])
}
