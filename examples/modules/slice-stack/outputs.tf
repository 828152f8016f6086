output "workload_policy" {
  description = "Self link of the workload policy."
  value       = gke_workload_policy.this.self_link
}

output "node_pools" {
  description = "Each node pool with its sub-block and partition."
  value = {
    for sub_block, p in gke_subblock_node_pool.pool : p.name => {
      sub_block       = sub_block
      partition_id    = p.partition_id
      partition_state = p.partition_state
      ready_nodes     = p.ready_node_count
    }
  }
}

output "slices" {
  description = "Per slice, its state and the wiring a workload needs."
  value = {
    for name, s in gke_tpu_slice.slice : name => {
      state            = s.state
      topology         = s.topology
      partition_ids    = s.partition_ids
      accelerator_type = s.accelerator_type
      hosts            = s.hosts
      chips            = s.chips
      node_selector    = s.node_selector
      pod_annotations  = s.pod_annotations
      # How a pod reaches the chips (see device_access).
      device_access           = s.device_access
      tpu_resources           = s.tpu_resources
      resource_claim_template = s.resource_claim_template
      pod_resource_claims     = s.pod_resource_claims
    }
  }
}

# Outputs in the cluster toolkit's names, for later modules of a blueprint.

output "workload_policy_name" {
  description = "Name of the workload policy."
  value       = gke_workload_policy.this.name
}

output "node_pool_names" {
  description = "Names of the node pools, one per sub-block."
  value       = [for p in gke_subblock_node_pool.pool : p.name]
}

output "tpu_chips_per_node" {
  description = "TPU chips of each node (tpu7x-standard-4t)."
  value       = 4
}

output "tpu_chips" {
  description = "TPU chips of all the stack's node pools (64 per sub-block), the quota a Kueue flavor of them would have."
  value       = length(gke_subblock_node_pool.pool) * 64
}

output "tolerations" {
  description = "Tolerations a pod needs on the stack's nodes (GKE taints TPU nodes google.com/tpu=present:NoSchedule)."
  value       = [{ key = "google.com/tpu", operator = "Equal", value = "present", effect = "NoSchedule" }]
}

output "instructions" {
  description = "What the stack made and how to look at it."
  value       = <<-EOT
    Slice stack ${local.name}: workload policy ${gke_workload_policy.this.name}, ${length(gke_subblock_node_pool.pool)} node pool(s) in block ${var.reservation_block} of ${var.reservation}, ${length(gke_tpu_slice.slice)} slice(s).
    See the slices and their state:
      kubectl get slices.accelerator.gke.io
    A pod of a slice needs the slice's node_selector and pod_annotations (output "slices").
  EOT
}
