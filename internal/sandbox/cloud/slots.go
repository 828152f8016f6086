package cloud

import (
	"fmt"
	"strconv"
)

// Reservation slots: Compute Engine's view of a sub-block's hosts. Every
// sub-block has HostsPerSubBlock slots, one per physical host, named
// SlotName(h). A slot is ACTIVE, or UNAVAILABLE while its host is
// UNHEALTHY (reported faulty) or its sub-block's maintenance is ongoing; the
// sandbox's reservations are never resized, so no slot is ever CREATING or
// DELETING. The VM that runs on a slot is the node of the pool that holds
// the sub-block on that host: GKE names a node after its VM.

// The states of a reservation slot (ReservationSlot.state).
const (
	SlotActive      = "ACTIVE"
	SlotUnavailable = "UNAVAILABLE"
)

// The states of an accelerator topology
// (AcceleratorTopologiesInfo...InfoPerTopologyState.state). Compute v1
// deprecates UNHEALTHY ("no longer used"): a topology whose hosts are not
// all healthy is DEGRADED, whether or not a pool runs on it.
const (
	TopologyAvailable = "AVAILABLE"
	TopologyRunning   = "RUNNING"
	TopologyDegraded  = "DEGRADED"
)

// SlotName is the name of the slot of host h of a sub-block.
func SlotName(h int) string {
	return fmt.Sprintf("slot-%02d", h)
}

// SlotIndex is the host index of the slot named name, or -1.
func SlotIndex(name string) int {
	if len(name) != len("slot-00") || name[:5] != "slot-" {
		return -1
	}
	h, err := strconv.Atoi(name[5:])
	if err != nil || h < 0 || h >= HostsPerSubBlock {
		return -1
	}
	return h
}

// HostTopologyID is the opaque physicalTopology.host of host h of a
// sub-block; GKE puts the same value on the node label
// cloud.google.com/gce-topology-host.
func HostTopologyID(s *SubBlockState, h int) string {
	return OpaqueID("host", s.Reservation, s.Block, s.Name, strconv.Itoa(h))[:16]
}

// SlotState is the state of the slot of host h of s. Callers hold w.Mu.
func SlotState(s *SubBlockState, h int) string {
	if s.Hosts[h] == HostUnhealthy || s.Maint.Status == MaintenanceOngoing {
		return SlotUnavailable
	}
	return SlotActive
}

// SlotInstance is the name of the VM that runs on host h of s, "" when
// none does: the pool that holds the sub-block has a VM on each of its
// first NodeCount hosts. Callers hold w.Mu.
func (w *World) SlotInstance(s *SubBlockState, h int) string {
	if s.NodePool == "" {
		return ""
	}
	p := w.NodePools[s.NodePool]
	if p == nil || p.Queued || h >= p.NodeCount {
		return ""
	}
	return w.NodeName(p.Name, h)
}

// TopologyState is the state of the sub-block's 4x4x4 accelerator
// topology: DEGRADED while one of its hosts is not HEALTHY or its
// maintenance is ongoing, else RUNNING while a pool holds it, else
// AVAILABLE. Callers hold w.Mu.
func TopologyState(s *SubBlockState) string {
	healthy, _, _ := s.Count()
	switch {
	case healthy < HostsPerSubBlock || s.Maint.Status == MaintenanceOngoing:
		return TopologyDegraded
	case s.NodePool != "":
		return TopologyRunning
	default:
		return TopologyAvailable
	}
}

// RunningHosts counts the hosts of s that run a VM. Callers hold w.Mu.
func (w *World) RunningHosts(s *SubBlockState) int {
	n := 0
	for h := range HostsPerSubBlock {
		if w.SlotInstance(s, h) != "" {
			n++
		}
	}
	return n
}
