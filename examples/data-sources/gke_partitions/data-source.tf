# Partitions a new slice could use in the pools of this stack.
data "gke_partitions" "available" {
  node_pools     = [for p in gke_subblock_node_pool.pool : p.name]
  available_only = true
}

# Every partition that is not healthy, cluster-wide.
data "gke_partitions" "attention" {
  states = ["DEGRADED", "UNHEALTHY", "INCOMPLETE", "UNSET"]
}

output "available_ids" {
  value = data.gke_partitions.available.ids
}

output "partition_states" {
  value = {
    for p in data.gke_partitions.attention.partitions : p.id => "${p.state} (${p.ready_nodes}/${p.nodes} Ready, pool ${p.node_pool})"
  }
}

# Free 2x2x1 partitions (single hosts) for sub-slices, with the sub-block
# each is in: a held sub-block partition shows which slice holds it.
data "gke_partitions" "free_hosts" {
  shape          = "2x2x1"
  node_pools     = [for p in gke_subblock_node_pool.pool : p.name]
  available_only = true
}

output "free_hosts_by_sub_block" {
  value = { for p in data.gke_partitions.free_hosts.partitions : p.id => p.parent_partition_id }
}

# The hosts of the partitions that are not healthy, with their reservation
# slots: an UNAVAILABLE slot is a faulty host (or one in maintenance), which
# gke_report_faulty can name by slot.
data "gke_partitions" "attention_hosts" {
  states     = ["DEGRADED", "UNHEALTHY"]
  read_slots = true
}

output "unavailable_slots" {
  value = {
    for p in data.gke_partitions.attention_hosts.partitions : p.id => [
      for h in p.hosts : "${h.slot} (node ${h.node_name})" if h.slot_state == "UNAVAILABLE"
    ]
  }
}
