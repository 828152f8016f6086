# The TPU_ACCELERATOR_TYPE of a workload on a 4x4x4 slice: "tpu7x-128".
output "accelerator_type" {
  value = provider::gke::accelerator_type("4x4x4")
}
