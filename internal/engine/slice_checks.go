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

// PlanSliceChecks runs the checks c asks for (the slices' CheckDeviceAccess, then
// partitionsMaintenance); each runs whatever the other found.
func (e *Engine) PlanSliceChecks(ctx context.Context, c SliceChecks) SliceChecked {
	var out SliceChecked
	if c.Access != nil {
		out.AccessErr = e.slices.CheckDeviceAccess(ctx, c.Topology, c.PartitionIDs, *c.Access)
	}
	if c.Maintenance {
		out.Maintenance, out.MaintenanceErr = e.partitionsMaintenance(ctx, c.Topology, c.PartitionIDs)
	}
	return out
}
