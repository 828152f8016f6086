# By the name: node_pools, namespaces, sub_slicing and the quota are read back from the objects.
terraform import gke_kueue_slicing.tpu tpu7x
