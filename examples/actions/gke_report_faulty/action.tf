# Report a whole sub-block whose hosts corrupt results. Run it with
#   terraform apply -invoke=action.gke_report_faulty.sub_block_a3
action "gke_report_faulty" "sub_block_a3" {
  config {
    zone              = "us-central1-a"
    reservation       = "tpu7x-reservation"
    reservation_block = "block-a"
    sub_block         = "sub-block-a3"
    failure_component = "MULTIPLE_FAULTY_HOSTS"
    fault_reasons = [{
      behavior    = "SILENT_DATA_CORRUPTION"
      description = "loss diverges on every slice placed on this sub-block"
    }]
  }
}

# Report the host of one VM (a GKE node's name is its VM's).
action "gke_report_faulty" "host" {
  config {
    zone          = "us-central1-a"
    instance      = "gke-ironwood-train-a3-1f2e3d4c-h07"
    fault_reasons = [{ behavior = "CHIP_ERROR", description = "TPU chip 2 reports uncorrectable errors" }]
  }
}
