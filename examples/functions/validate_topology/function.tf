# Reject a bad topology when the variable is read, before anything is planned.
# For "4x8x4" Terraform stops with:
#   topology "4x8x4": dimensions must be in non-decreasing order (A ≤ B ≤ C);
#   write the same shape as "4x4x8"
variable "slice_topology" {
  type    = string
  default = "4x8x8"

  validation {
    condition     = provider::gke::validate_topology(var.slice_topology)
    error_message = "The slice topology must be a valid tpu7x topology."
  }
}
