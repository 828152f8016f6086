# With Terraform 1.12+ or OpenTofu 1.12+: as an import by name, the objects
# are read back. project, location and cluster may be left out; when given,
# they must be the provider's.
import {
  to = gke_kueue_slicing.tpu
  identity = {
    name = "tpu7x"
  }
}
