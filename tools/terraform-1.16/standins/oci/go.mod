// A stand-in for Terraform's unpublished module of the "oci" backend (see
// tools/terraform-1.15/go.mod): it builds into the test binary and refuses
// to be configured.
module github.com/hashicorp/terraform/internal/backend/remote-state/oci

go 1.25
