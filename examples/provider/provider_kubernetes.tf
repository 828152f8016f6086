# An explicit kubeconfig for the Kubernetes API, and a service account
# impersonated for the Google APIs.
provider "gke" {
  alias                       = "kubeconfig"
  project                     = "my-project"
  location                    = "us-central1"
  cluster                     = "ironwood-training"
  impersonate_service_account = "slice-admin@my-project.iam.gserviceaccount.com"

  kubernetes {
    config_path    = "~/.kube/config"
    config_context = "gke_my-project_us-central1_ironwood-training"
  }
}
