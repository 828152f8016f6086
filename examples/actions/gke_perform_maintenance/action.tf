# Start the pending maintenance of one sub-block now, deleting the slices
# and the node pool there first. Run it with
#   terraform apply -invoke=action.gke_perform_maintenance.sub_block_a4
# and, once the maintenance is done, `terraform apply` recreates them.
action "gke_perform_maintenance" "sub_block_a4" {
  config {
    zone              = "us-central1-a"
    reservation       = "tpu7x-reservation"
    reservation_block = "block-a"
    sub_block         = "sub-block-a4"
    drain             = true
    timeout           = "45m"
  }
}
