package sandbox

import "github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"

// TaintTPU is the taint GKE puts on every TPU node, google.com/tpu=present
// with effect NoSchedule (cloud.TaintTPU).
const TaintTPU = cloud.TaintTPU

// ResourceTPU is the extended resource of a TPU node's chips, which GKE's
// TPU device plugin advertises (cloud.ResourceTPU).
const ResourceTPU = cloud.ResourceTPU
