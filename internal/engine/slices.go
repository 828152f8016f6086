package engine

import "context"

// The slices are package tpuslice's: the front forwards them.

// CheckExistingSlice says whether the plan must replace the slice name. A
// slice that cannot be read is left to the refresh, which reports it.
func (e *Engine) CheckExistingSlice(ctx context.Context, name string) ExistingSliceVerdict {
	return e.slices.CheckExistingSlice(ctx, name)
}

// PlanNewSlice runs the checks a plan makes of a new slice, in order
// (cluster access, the version gate, then the listed partitions or the
// selection), and returns the first problem found. What is not known yet
// is not checked.
func (e *Engine) PlanNewSlice(ctx context.Context, p NewSlicePlan) NewSliceVerdict {
	return e.slices.PlanNewSlice(ctx, p)
}

// CheckSelectorHolds says whether the partitions ids of the slice name of
// topology topo satisfy the selector sel, so that they can stand for its
// choice instead of the slice being replaced to choose again.
func (e *Engine) CheckSelectorHolds(ctx context.Context, name, topo string, sel PartitionSelector, ids []string) SelectorCheck {
	return e.slices.CheckSelectorHolds(ctx, name, topo, sel, ids)
}

// CreateSlice creates the slice and waits until the slice controller makes
// it ready (see tpuslice.Slices.CreateSlice). created is called with the
// partition IDs as soon as the Slice object exists, before the wait.
func (e *Engine) CreateSlice(ctx context.Context, req SliceRequest, created func(ids []string)) (*Slice, error) {
	return e.slices.CreateSlice(ctx, req, created)
}

// ResumeSlice waits for a Slice whose create was interrupted, as
// CreateSlice does after the create; ctx is the resume's own.
func (e *Engine) ResumeSlice(ctx context.Context, name string, allowDegraded, retry bool) (*Slice, error) {
	return e.slices.ResumeSlice(ctx, name, allowDegraded, retry)
}

// ReadSlice reads the Slice, or ErrNotFound; with WithDeviceAccess, a
// Slice that Kueue does not own gets DeviceAccess.
func (e *Engine) ReadSlice(ctx context.Context, name string, opts ...SliceReadOption) (*Slice, error) {
	return e.slices.ReadSlice(ctx, name, opts...)
}

// UpdateSlice changes the slice in place as u says. An access the nodes do
// not offer (the check's error, as is) changes nothing; a failed write of
// retry-on-failure is a RetryOnFailureError.
func (e *Engine) UpdateSlice(ctx context.Context, u SliceUpdate) error {
	return e.slices.UpdateSlice(ctx, u)
}

// DeleteSlice deletes the Slice and waits until it is gone. When ctx ends
// first and forceFinalizer is set, it removes the controller's finalizer,
// as GKE's documented procedure does, and returns a warning saying so.
func (e *Engine) DeleteSlice(ctx context.Context, name string, forceFinalizer bool) (SliceDeleted, error) {
	return e.slices.DeleteSlice(ctx, name, forceFinalizer)
}
