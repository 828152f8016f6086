# A training Job on a 4x4x8 slice (128 chips) through the device plugin:
# 64 pods of 2 chips, two pods per host. The result gives the Job's
# parallelism (pods) and each container's google.com/tpu requests.
output "training_fit" {
  value = provider::gke::slice_workload("4x4x8", "device_plugin", 64, 2)
}

# Through GKE's TPU DRA driver each pod claims a whole host: 32 pods.
output "dra_fit" {
  value = provider::gke::slice_workload("4x4x8", "dra", 32, 4)
}
