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
