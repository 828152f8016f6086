package clusterread

import "github.com/dynslice/terraform-provider-gke/internal/wellknown"

// DeviceAccess is how the pods of a workload reach the TPU chips of their
// hosts: through GKE's TPU device plugin (the google.com/tpu resource), or
// through GKE's TPU DRA driver (a ResourceClaim of the DeviceClass
// tpu.google.com). A node is on one or the other: a pool whose node labels
// carry cloud.google.com/gke-tpu-dra-driver=true has the device plugin
// turned off, so its nodes have no google.com/tpu capacity.
type DeviceAccess string

const (
	// DevicePlugin requests google.com/tpu: 4 per pod (GKE's default).
	DevicePlugin DeviceAccess = "device_plugin"
	// DRA claims every chip of the pod's host through a ResourceClaim made
	// from a ResourceClaimTemplate (allocationMode All).
	DRA DeviceAccess = "dra"
)

// DeviceAccesses are the accepted values, the default first.
var DeviceAccesses = []DeviceAccess{DevicePlugin, DRA}

// OrDefault is the access, DevicePlugin when unset.
func (a DeviceAccess) OrDefault() DeviceAccess {
	if a == "" {
		return DevicePlugin
	}
	return a
}

// Mismatch says why a partition's nodes do not offer the access, or ""
// when every node does.
func (a DeviceAccess) Mismatch(p Partition) string {
	switch a.OrDefault() {
	case DRA:
		if p.DRANodes < p.Nodes {
			return "without GKE's TPU DRA driver (node label " + wellknown.LabelTPUDRADriver + "=true)"
		}
	default:
		if p.DRANodes > 0 {
			return "on GKE's TPU DRA driver (no " + wellknown.ResourceTPU + " device plugin)"
		}
	}
	return ""
}

// DeviceAccess is the access the partition's nodes offer: DRA when every
// one is on GKE's TPU DRA driver, else DevicePlugin.
func (p Partition) DeviceAccess() DeviceAccess {
	if p.Nodes > 0 && DRA.Mismatch(p) == "" {
		return DRA
	}
	return DevicePlugin
}
