# What a pod of a workload queued by Kueue on a 4x4x8 dynamic slice
# carries: the slice-topology annotation, a tpu7x node selector (no slice
# name: Kueue creates the slice when it admits the workload), and its
# google.com/tpu requests. 32 pods of 4 chips fill the slice's 128 chips;
# pods that do not fill it fail at plan, naming both numbers.
output "kueue_wiring" {
  value = provider::gke::kueue_workload("4x4x8", 32, 4)
}
