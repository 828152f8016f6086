// A stand-in for Terraform's unpublished module of the "gcs" backend (see
// tools/terraform-1.15/go.mod): it builds into the test binary and refuses
// to be configured.
module github.com/hashicorp/terraform/internal/backend/remote-state/gcs

go 1.25
