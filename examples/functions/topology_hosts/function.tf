variable "topology" {
  type    = string
  default = "4x8x8"
}

# One pod per tpu7x-standard-4t host: a 4x8x8 slice runs 64 pods.
locals {
  hosts = provider::gke::topology_hosts(var.topology)
}

output "job_parallelism" {
  value = local.hosts
}
