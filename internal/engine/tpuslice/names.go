package tpuslice

import (
	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

// The names of clusterread and kernel the slices use, as the front names
// them (the same types and values, so errors.As and errors.Is hold).
type (
	Partition          = clusterread.Partition
	DeviceAccess       = clusterread.DeviceAccess
	Slice              = clusterread.Slice
	ClusterAccessError = clusterread.ClusterAccessError
	WatchFailingError  = clusterread.WatchFailingError
	ExistsError        = kernel.ExistsError
)

const (
	DevicePlugin        = clusterread.DevicePlugin
	DRA                 = clusterread.DRA
	SliceActive         = clusterread.SliceActive
	SliceActiveDegraded = clusterread.SliceActiveDegraded
	SliceCreationFailed = clusterread.SliceCreationFailed
	SliceFailed         = clusterread.SliceFailed
)

var (
	ErrNotFound = kernel.ErrNotFound
	ErrNoAnswer = kernel.ErrNoAnswer
)

// KueueOwnedError says that Kueue's admission check owns the Slice s.
func KueueOwnedError(s *Slice) error { return clusterread.KueueOwnedError(s) }

// targetOf is the reservation target of the pool p (reservation.TargetOf).
var targetOf = reservation.TargetOf
