# A full pod, 16x24x24, is made of 144 partitions: one node pool per sub-block.
output "partitions" {
  value = provider::gke::topology_partitions("16x24x24")
}
