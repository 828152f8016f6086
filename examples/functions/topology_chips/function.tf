# 8x16x16 holds 2048 chips.
output "chips" {
  value = provider::gke::topology_chips("8x16x16")
}
