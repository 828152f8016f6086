# What a pod of a workload queued by Kueue on a 4x4x8 dynamic slice
# carries: the slice-topology annotation, a tpu7x node selector (no slice
# name: Kueue creates the slice when it admits the workload), 32 pods.
output "kueue_wiring" {
  value = provider::gke::kueue_workload("4x4x8")
}
