# By path, by self link, or by name (with the provider's project and location).
terraform import gke_workload_policy.dynamic_slicing projects/my-project/regions/us-central1/resourcePolicies/ironwood-dynamic-slicing
terraform import gke_workload_policy.dynamic_slicing ironwood-dynamic-slicing
