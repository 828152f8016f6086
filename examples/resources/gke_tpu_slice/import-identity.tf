# With Terraform 1.12+ or OpenTofu 1.12+. project, location and cluster may
# be left out; when given, they must be the provider's.
import {
  to = gke_tpu_slice.explicit
  identity = {
    name = "train-4x8x8"
  }
}
