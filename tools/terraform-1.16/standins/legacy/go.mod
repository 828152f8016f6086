// A stand-in for Terraform's unpublished module internal/legacy (see
// tools/terraform-1.16/go.mod). No package of the terraform command imports
// it; it is here only because Terraform's go.mod requires it, and holds no
// package.
module github.com/hashicorp/terraform/internal/legacy

go 1.25
