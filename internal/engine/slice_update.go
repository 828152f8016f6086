package engine

import "context"

// SliceChecks are the checks a plan of a slice makes last, in this order:
// Access, when set, against the nodes of the partitions PartitionIDs (an
// existing slice whose device_access changes); then, with Maintenance,
// the maintenance on their sub-blocks.
type SliceChecks struct {
	Topology     string
	PartitionIDs []string
	Access       *DeviceAccess
	Maintenance  bool
}

// SliceChecked is what PlanSliceChecks found: the access check's error (a
// DeviceAccessError when the nodes do not offer it), and the maintenance
// found or the error of its read.
type SliceChecked struct {
	AccessErr      error
	Maintenance    []PartitionMaintenance
	MaintenanceErr error
}

// PlanSliceChecks runs the checks c asks for (checkDeviceAccess, then
// partitionsMaintenance); each runs whatever the other found.
func (e *Engine) PlanSliceChecks(ctx context.Context, c SliceChecks) SliceChecked {
	var out SliceChecked
	if c.Access != nil {
		out.AccessErr = e.checkDeviceAccess(ctx, c.Topology, c.PartitionIDs, *c.Access)
	}
	if c.Maintenance {
		out.Maintenance, out.MaintenanceErr = e.partitionsMaintenance(ctx, c.Topology, c.PartitionIDs)
	}
	return out
}

// SliceUpdate is an in-place change of the slice Name: Access, when set,
// is the new device access, checked first against the nodes of its
// partitions (Topology, PartitionIDs); RetryOnFailure, when set, is then
// written to the Slice.
type SliceUpdate struct {
	Name, Topology string
	PartitionIDs   []string
	Access         *DeviceAccess
	RetryOnFailure *bool
}

// RetryOnFailureError is a write of retry-on-failure that failed; its
// text is the write's.
type RetryOnFailureError struct{ Err error }

func (e *RetryOnFailureError) Error() string { return e.Err.Error() }
func (e *RetryOnFailureError) Unwrap() error { return e.Err }

// UpdateSlice changes the slice in place as u says. An access the nodes do
// not offer (the check's error, as is) changes nothing; a failed write of
// retry-on-failure is a RetryOnFailureError.
func (e *Engine) UpdateSlice(ctx context.Context, u SliceUpdate) error {
	if u.Access != nil {
		if err := e.checkDeviceAccess(ctx, u.Topology, u.PartitionIDs, *u.Access); err != nil {
			return err
		}
	}
	if u.RetryOnFailure != nil {
		if err := e.setRetryOnFailure(ctx, u.Name, *u.RetryOnFailure); err != nil {
			return &RetryOnFailureError{Err: err}
		}
	}
	return nil
}
