package tpuslice

import (
	"context"
	"errors"
	"fmt"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// What a plan decides about a slice: for an existing one, whether it must
// be replaced; for a new one, what is already known to stop its create.
// The provider maps these verdicts to its plan and diagnostics.

// ExistingSliceVerdict is a plan's verdict on a slice that exists.
type ExistingSliceVerdict struct {
	// Replace: the slice cannot recover in place (FAILED, which the
	// controller does not re-form, or being deleted).
	Replace bool
	// Why says so, for the plan's warning.
	Why string
}

// CheckExistingSlice says whether the plan must replace the slice name. A
// slice that cannot be read is left to the refresh, which reports it.
func (e *Slices) CheckExistingSlice(ctx context.Context, name string) ExistingSliceVerdict {
	s, err := e.ReadSlice(ctx, name)
	switch {
	case err != nil:
		return ExistingSliceVerdict{}
	case s.Deleting:
		return ExistingSliceVerdict{Replace: true, Why: fmt.Sprintf("Slice %s is being deleted", s.Name)}
	case s.State == clusterread.SliceFailed:
		return ExistingSliceVerdict{Replace: true, Why: fmt.Sprintf("Slice %s is %s (%s)", s.Name, s.State, s.Message)}
	}
	return ExistingSliceVerdict{}
}

// NewSliceProblem is what a plan found to stop a new slice.
type NewSliceProblem int

// The problems PlanNewSlice reports, in the order it looks for them.
const (
	// NoProblem: nothing known stops the slice.
	NoProblem NewSliceProblem = iota
	// ClusterUnreadable: the cluster's nodes and Slices cannot be read
	// (wrong CA, credentials, permissions, no Slice API, no answer).
	ClusterUnreadable
	// VersionUnknown: the cluster's GKE version could not be read.
	VersionUnknown
	// VersionTooOld: the cluster's version cannot form the topology.
	VersionTooOld
	// DeviceAccessMismatch: listed partitions are on nodes that do not
	// offer the slice's device access (a DeviceAccessError).
	DeviceAccessMismatch
	// PartitionsUnusable: listed partitions are held by another slice.
	PartitionsUnusable
	// SelectionUnmet: the existing pools cannot meet the selection.
	SelectionUnmet
	// SelectionNotChecked: the selection could not be checked (the node
	// pools of its workload policy could not be listed).
	SelectionNotChecked
	// PartitionsInvalid: listed partitions break a rule that no apply
	// changes (a ListedPartitionsError: another shape, two blocks).
	PartitionsInvalid
	// SelectorBlockUnknown: partition_selector.block names a block that
	// no node pool targets (a SelectorBlockError).
	SelectorBlockUnknown
)

// NewSlicePlan is a new slice as a plan knows it: empty fields are not
// known yet (they come from resources of the same apply).
type NewSlicePlan struct {
	Name, Topology string
	// PartitionIDs are the listed partitions, when known; Selector the
	// selector, when known and set.
	PartitionIDs []string
	Selector     *PartitionSelector
	// DeviceAccess is the slice's device access (default DevicePlugin).
	DeviceAccess clusterread.DeviceAccess
	// PlannedBlocks are the reservation blocks ("reservation/block")
	// that node pools of the same plan will target.
	PlannedBlocks []string
}

// NewSliceVerdict is the first problem a plan found, and its cause.
type NewSliceVerdict struct {
	Problem NewSliceProblem
	Err     error
}

// PlanNewSlice runs the checks a plan makes of a new slice, in order
// (cluster access, the version gate, then the listed partitions or the
// selection), and returns the first problem found. What is not known yet
// is not checked.
func (e *Slices) PlanNewSlice(ctx context.Context, p NewSlicePlan) NewSliceVerdict {
	if err := e.checkClusterAccess(ctx); err != nil {
		return NewSliceVerdict{ClusterUnreadable, err}
	}
	if p.Topology == "" {
		return NewSliceVerdict{}
	}
	t, err := topology.ParseTPU7x(p.Topology)
	if err != nil {
		return NewSliceVerdict{} // the topology's validator reports it
	}
	if err := e.checkVersion(ctx, t); errors.Is(err, ErrVersionUnknown) {
		return NewSliceVerdict{VersionUnknown, err}
	} else if err != nil {
		return NewSliceVerdict{VersionTooOld, err}
	}
	switch {
	case p.PartitionIDs != nil && p.Name != "":
		if err := e.checkListedAccess(ctx, t, p.PartitionIDs, p.DeviceAccess); err != nil {
			var mismatch *DeviceAccessError
			if errors.As(err, &mismatch) {
				return NewSliceVerdict{DeviceAccessMismatch, err}
			}
		}
		if err := e.checkListedRules(ctx, t, p.PartitionIDs); err != nil {
			return NewSliceVerdict{PartitionsInvalid, err}
		}
		if err := e.checkListedPartitions(ctx, p.Name, t, p.PartitionIDs); err != nil {
			return NewSliceVerdict{PartitionsUnusable, err}
		}
	case p.Selector != nil:
		sel := *p.Selector
		if err := e.checkSelectorBlock(ctx, sel, p.PlannedBlocks); err != nil {
			return NewSliceVerdict{SelectorBlockUnknown, err}
		}
		var unchecked *SelectionNotCheckedError
		if err := e.checkSelection(ctx, p.Name, t, sel, p.DeviceAccess); errors.As(err, &unchecked) {
			return NewSliceVerdict{SelectionNotChecked, err}
		} else if err != nil {
			return NewSliceVerdict{SelectionUnmet, err}
		}
	}
	return NewSliceVerdict{}
}
