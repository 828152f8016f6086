package sandbox

import (
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dra"
)

// LabelTPUDRADriver is the node label with which a node pool asks for GKE's
// TPU DRA driver ("true"); see package dra.
const LabelTPUDRADriver = dra.LabelDriver

// DriverTPU is the name of GKE's TPU DRA driver, of its DeviceClass, and
// the domain of its device attributes.
const DriverTPU = dra.Driver

// chipsPerHost is the number of TPU chips of a tpu7x-standard-4t host.
const chipsPerHost = dra.ChipsPerHost
