# By the Slice name.
terraform import gke_tpu_slice.explicit train-4x8x8
