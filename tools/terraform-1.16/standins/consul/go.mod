// A stand-in for Terraform's unpublished module of the "consul" backend (see
// tools/terraform-1.15/go.mod): it builds into the test binary and refuses
// to be configured.
module github.com/hashicorp/terraform/internal/backend/remote-state/consul

go 1.25
