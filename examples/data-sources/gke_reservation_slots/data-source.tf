# Every host of a reservation block, read from Compute Engine's reservation
# slots: this needs no cluster, so it works before the first node pool.
data "gke_reservation_slots" "block_a" {
  zone              = "us-central1-a"
  reservation       = "tpu7x-reservation"
  reservation_block = "block-a"
}

# The hosts Compute Engine reports UNAVAILABLE (faulty or in maintenance),
# with the VM and node on each, if any.
output "unavailable_hosts" {
  value = [
    for s in data.gke_reservation_slots.block_a.slots : {
      sub_block     = s.sub_block
      slot          = s.name
      physical_host = s.physical_host
      instance      = s.instance
      node          = s.node_name
    } if s.state == "UNAVAILABLE"
  ]
}

# One sub-block's hosts, and which VM runs where.
data "gke_reservation_slots" "a1" {
  zone                  = "us-central1-a"
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a1"
}

output "vm_by_host" {
  value = { for s in data.gke_reservation_slots.a1.slots : s.physical_host => s.instance }
}
