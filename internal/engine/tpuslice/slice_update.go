package tpuslice

import (
	"context"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
)

// SliceUpdate is an in-place change of the slice Name: Access, when set,
// is the new device access, checked first against the nodes of its
// partitions (Topology, PartitionIDs); RetryOnFailure, when set, is then
// written to the Slice.
type SliceUpdate struct {
	Name, Topology string
	PartitionIDs   []string
	Access         *clusterread.DeviceAccess
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
func (e *Slices) UpdateSlice(ctx context.Context, u SliceUpdate) error {
	if u.Access != nil {
		if err := e.CheckDeviceAccess(ctx, u.Topology, u.PartitionIDs, *u.Access); err != nil {
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
