# The cluster toolkit's standard inputs (gcluster passes its blueprint's vars
# of the same names): project_id, deployment_name, region, zone and labels.

variable "project_id" {
  description = "Project of the reservation, the workload policy and the node pools. Default: the provider's project."
  type        = string
  default     = null
}

variable "deployment_name" {
  description = "Name of the deployment; the stack's name when name is not set."
  type        = string
  default     = null
}

variable "region" {
  description = "Region of the workload policy, the region of zone. Default: the region of the provider's location."
  type        = string
  default     = null
}

variable "labels" {
  description = "GCP labels for the node pools (GKE resource labels, on their VMs). Compute Engine resource policies take no labels."
  type        = map(string)
  default     = {}
}

variable "cluster_id" {
  description = "The cluster the node pools are created in, projects/P/locations/L/clusters/C (the cluster toolkit's gke-cluster output). Default: the provider's cluster. Slices are made in the provider's cluster, which must be the same."
  type        = string
  default     = null

  validation {
    condition     = var.cluster_id == null || can(regex("^projects/[^/]+/locations/[^/]+/clusters/[^/]+$", var.cluster_id))
    error_message = "cluster_id must be projects/PROJECT/locations/LOCATION/clusters/CLUSTER, as the cluster toolkit's gke-cluster module outputs it."
  }
}

variable "zone" {
  description = "Zone of the reservation, where the nodes are created."
  type        = string
}

variable "reservation" {
  description = "Name of the All Capacity mode TPU7x reservation."
  type        = string
}

variable "reservation_block" {
  description = "Name of the reservation block the stack uses."
  type        = string
}

variable "name" {
  description = "Name of the stack: prefix of the workload policy and the node pools (at most 20 characters). Default: deployment_name."
  type        = string
  default     = null

  validation {
    condition     = var.name == null || can(regex("^[a-z]([-a-z0-9]{0,18}[a-z0-9])?$", var.name))
    error_message = "name must be 1-20 lower-case letters, digits or hyphens, starting with a letter and not ending with a hyphen (it prefixes node pool names, which GKE limits to 40 characters)."
  }
}

variable "sub_blocks" {
  description = "Which sub-blocks get a node pool: null (default) for every free one, or a list of sub-block names."
  type        = list(string)
  default     = null
}

variable "sub_block_count" {
  description = "At most this many of the chosen sub-blocks get a node pool (the first ones by name); null for all."
  type        = number
  default     = null

  validation {
    condition     = var.sub_block_count == null || try(var.sub_block_count >= 1, false)
    error_message = "sub_block_count must be at least 1, or null for every chosen sub-block."
  }
}

variable "slices" {
  description = "Slices to form from the stack's partitions: name => { topology, allow_degraded }. Each topology is a tpu7x super-slice AxBxC (whole 4x4x4 partitions; together at most as many as the stack has node pools) or a sub-slice 2x2x1, 2x2x2, 2x2x4 or 2x4x4 (packed into the sub-blocks already cut)."
  type = map(object({
    topology       = string
    allow_degraded = optional(bool, false)
  }))
  default = {}

  validation {
    condition     = alltrue([for s in values(var.slices) : provider::gke::validate_topology(s.topology)])
    error_message = "Every slice topology must be a valid tpu7x topology."
  }

  validation {
    condition     = alltrue([for name in keys(var.slices) : can(regex("^[a-z]([-a-z0-9]{0,47}[a-z0-9])?$", name))])
    error_message = "Slice names must be DNS labels of at most 49 characters (lower-case letters, digits and hyphens, starting with a letter)."
  }
}

variable "wait_for_partition" {
  description = "What each node pool's create waits for: LABELLED, HEALTHY or HEALTHY_OR_DEGRADED."
  type        = string
  default     = "LABELLED"
}

variable "device_access" {
  description = "How workloads reach the chips: device_plugin (default: pods request google.com/tpu) or dra (GKE's TPU DRA driver: the node pools get the node label cloud.google.com/gke-tpu-dra-driver=true, and pods claim their host's chips through a ResourceClaim)."
  type        = string
  default     = "device_plugin"

  validation {
    condition     = contains(["device_plugin", "dra"], var.device_access)
    error_message = "device_access must be device_plugin or dra."
  }
}
