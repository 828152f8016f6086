# Application Default Credentials; Kubernetes access derived from the cluster.
provider "gke" {
  project  = "my-project"
  location = "us-central1"
  cluster  = "ironwood-training"
}
