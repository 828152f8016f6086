package cloud

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
)

// SubBlockState is the live state of one sub-block.
type SubBlockState struct {
	Reservation, Block, Name string
	// Hosts holds each host's health, index 0..15.
	Hosts [HostsPerSubBlock]string
	// NodePool is the pool that occupies the sub-block, "" when free.
	NodePool string
	// Maint is the sub-block's maintenance and faults (maintenance.go).
	Maint MaintenanceState
}

// Path is the reservation path GKE takes for sub-block targeting.
func (s *SubBlockState) Path(project string) string {
	return fmt.Sprintf("projects/%s/reservations/%s/reservationBlocks/%s/reservationSubBlocks/%s", project, s.Reservation, s.Block, s.Name)
}

// PartitionID is the 32-hex partition ID GKE gives the sub-block's nodes.
// It is derived from the sub-block, so it is stable across runs.
func (s *SubBlockState) PartitionID() string {
	return OpaqueID("partition", s.Reservation, s.Block, s.Name)[:32]
}

// SubPartitionID is the 32-hex ID of partition idx of the shape (one of
// slicerules.PartitionShapes) in the sub-block: for 4x4x4 the sub-block's
// PartitionID, for the smaller shapes one derived from it, so that every
// ID is stable across runs and nests under the sub-block's.
func (s *SubBlockState) SubPartitionID(shape string, idx int) string {
	if shape == slicerules.SubBlockShape {
		return s.PartitionID()
	}
	return OpaqueID("partition", s.Reservation, s.Block, s.Name, shape, strconv.Itoa(idx))[:32]
}

// Count returns how many hosts have each health.
func (s *SubBlockState) Count() (healthy, degraded, unhealthy int) {
	for _, h := range s.Hosts {
		switch h {
		case HostDegraded:
			degraded++
		case HostUnhealthy:
			unhealthy++
		default:
			healthy++
		}
	}
	return healthy, degraded, unhealthy
}

// Health is the sub-block's health as the Compute API reports it.
func (s *SubBlockState) Health() string {
	_, degraded, unhealthy := s.Count()
	switch {
	case unhealthy > 0:
		return "UNHEALTHY"
	case degraded > 0:
		return "DEGRADED"
	default:
		return "HEALTHY"
	}
}

// OpaqueID is a stable hex identifier standing for GCE's opaque topology
// and partition IDs.
func OpaqueID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// NewSubBlockStates expands an inventory into live sub-block states, in
// inventory order.
func NewSubBlockStates(inv *Inventory) []*SubBlockState {
	var out []*SubBlockState
	for _, r := range inv.Reservations {
		for _, b := range r.Blocks {
			for _, s := range b.SubBlocks {
				st := &SubBlockState{Reservation: r.Name, Block: b.Name, Name: s.Name}
				for i := range st.Hosts {
					st.Hosts[i] = HostHealthy
				}
				idx := make([]string, 0, len(s.HostHealth))
				for k := range s.HostHealth {
					idx = append(idx, k)
				}
				sort.Strings(idx)
				for _, k := range idx {
					i, _ := strconv.Atoi(k)
					st.Hosts[i] = s.HostHealth[k]
				}
				if s.Maintenance == MaintenancePending {
					st.Maint = PendingMaintenance(time.Now())
				}
				out = append(out, st)
			}
		}
	}
	return out
}

// ClusterTopologyID is the opaque physicalTopology.cluster of every block
// and sub-block of a reservation.
func ClusterTopologyID(reservation string) string {
	return OpaqueID("cluster", reservation)[:16]
}

// BlockTopologyID is the opaque physicalTopology.block of a sub-block's
// block; GKE puts the same value on the node label
// cloud.google.com/gce-topology-block.
func BlockTopologyID(s *SubBlockState) string {
	return OpaqueID("block", s.Reservation, s.Block)[:16]
}

// SubBlockTopologyID is the opaque physicalTopology.subBlock of a
// sub-block; GKE puts the same value on the node label
// cloud.google.com/gce-topology-subblock.
func SubBlockTopologyID(s *SubBlockState) string {
	return OpaqueID("subblock", s.Reservation, s.Block, s.Name)[:16]
}
