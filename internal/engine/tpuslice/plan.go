package tpuslice

import (
	"context"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
)

// SlicePlan is what one plan of a slice asks, in one call (Plan).
type SlicePlan struct {
	// ID is the existing slice's name, from the state; "" plans a new
	// slice (New).
	ID string
	// Reselects says that a selector chooses the existing slice's
	// partitions: when the slice is replaced, they are chosen again, so
	// nothing is checked of the ones it has.
	Reselects bool
	// Selector, when set, is a partition_selector of the existing slice
	// that differs from the state's, to check against its partitions.
	Selector *SelectorQuestion
	// New is the plan of a new slice (ID "").
	New NewSlicePlan
	// Topology and PartitionIDs are the slice's, as planned, for Access
	// and Maintenance.
	Topology     string
	PartitionIDs []string
	// Access, when set, is a device_access changed to one to check
	// against the nodes of the partitions.
	Access *clusterread.DeviceAccess
	// Maintenance asks for the maintenance on the partitions' sub-blocks.
	Maintenance bool
}

// SelectorQuestion asks whether an existing slice's partitions satisfy
// a selector (CheckSelectorHolds).
type SelectorQuestion struct {
	Name, Topology string
	Selector       PartitionSelector
	PartitionIDs   []string
	// Unchecked says that the question cannot be asked yet (the selector
	// or the topology is known only after apply): the answer is
	// SelectorUnknown.
	Unchecked bool
	// Unrecorded says that the state has no selector (an import, or
	// partitions listed until now): a slice whose partitions cannot be
	// checked yet is kept, and the apply records the selector.
	Unrecorded bool
}

// SlicePlanned is what Plan found.
type SlicePlanned struct {
	// Existing is the verdict on the existing slice (ID set).
	Existing ExistingSliceVerdict
	// Selector is the answer to SlicePlan.Selector (nil: not asked, or
	// the slice is replaced for another reason first).
	Selector *SelectorCheck
	// New is the verdict on a new slice (ID "").
	New NewSliceVerdict
	// AccessErr is the device access check's error (a DeviceAccessError
	// when the nodes do not offer it).
	AccessErr error
	// Maintenance is the maintenance found on the partitions' sub-blocks,
	// or MaintenanceErr the error of its read.
	Maintenance    []PartitionMaintenance
	MaintenanceErr error
	// Claimed is a PartitionClaimedError when another slice of the same
	// plan claims one of the slice's partitions, or one that overlaps it.
	Claimed error
}

// Replaces says whether the plan replaces the existing slice: it cannot
// recover in place, or its partitions do not satisfy its new selector (or
// cannot be checked against it, when the state has a selector).
func (p SlicePlanned) Replaces(q SlicePlan) bool {
	if p.Existing.Replace {
		return true
	}
	if p.Selector == nil || p.Selector.Verdict == SelectorHolds {
		return false
	}
	return p.Selector.Verdict != SelectorUnknown || q.Selector == nil || !q.Selector.Unrecorded
}

// Plan runs the checks of one plan of a slice, in order: the existing
// slice's state (a slice that cannot recover in place is replaced), its
// new selector, or a new slice's checks (NewSliceVerdict); then, unless a
// replacement chooses its partitions again, the claim of its listed
// partitions against the other slices of the plan (Claimed), the changed
// device access and the maintenance on its partitions' sub-blocks. Every check reads the
// engine's shared reads (the inventory, the node pool list, each block's
// maintenance once per plan): a plan of many slices makes no request per
// slice.
func (e *Slices) Plan(ctx context.Context, q SlicePlan) SlicePlanned {
	var out SlicePlanned
	if q.ID != "" {
		out.Existing = e.CheckExistingSlice(ctx, q.ID)
		if out.Existing.Replace && q.Reselects {
			return out
		}
		if !out.Existing.Replace && q.Selector != nil {
			check := SelectorCheck{Verdict: SelectorUnknown}
			if !q.Selector.Unchecked {
				check = e.CheckSelectorHolds(ctx, q.Selector.Name, q.Selector.Topology, q.Selector.Selector, q.Selector.PartitionIDs)
			}
			out.Selector = &check
			if out.Replaces(q) {
				return out // its partitions are chosen again
			}
		}
	} else {
		out.New = e.PlanNewSlice(ctx, q.New)
	}
	name := q.ID
	if name == "" {
		name = q.New.Name
	}
	out.Claimed = e.claimPlanned(ctx, name, q.Topology, q.PartitionIDs)
	if q.Access != nil {
		out.AccessErr = e.CheckDeviceAccess(ctx, q.Topology, q.PartitionIDs, *q.Access)
	}
	if q.Maintenance {
		out.Maintenance, out.MaintenanceErr = e.PartitionsMaintenance(ctx, q.Topology, q.PartitionIDs)
	}
	return out
}
