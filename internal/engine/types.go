package engine

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/day2"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
)

// The engine's names for what its packages share (internal/engine/kernel),
// so that callers keep using engine.X.
type (
	// Compute is what the engine needs from the Compute Engine API.
	Compute = kernel.Compute
	// GKE is what the engine needs from the GKE API.
	GKE = kernel.GKE
	// Cluster is what the engine needs from the cluster's API server.
	Cluster = kernel.Cluster
	// Operation is a long-running operation of a Google API.
	Operation = kernel.Operation
	// OperationState is an operation as last read.
	OperationState = kernel.OperationState
	// OperationError is an operation that ended in failure.
	OperationError = kernel.OperationError
	// RetriedCreateError is the error answered to a create sent more
	// than once.
	RetriedCreateError = kernel.RetriedCreateError
	// ExistsError is a create that found an object of its name that is
	// not the one the configuration declares.
	ExistsError = kernel.ExistsError
	// CreatorAtWorkError is a create that found its object made by
	// another creator whose record is fresh: it was not adopted.
	CreatorAtWorkError = kernel.CreatorAtWorkError
)

const (
	// CreateRecordNamespace is the namespace of the creates' Leases.
	CreateRecordNamespace = kernel.CreateRecordNamespace
	// CreateRecordDuration is how long a create's record is fresh after
	// its last renewal.
	CreateRecordDuration = kernel.CreateRecordDuration
)

var (
	// ErrNotFound is returned when an object does not exist (any more).
	ErrNotFound = kernel.ErrNotFound
	// ErrNoAnswer marks a request that was never answered.
	ErrNoAnswer = kernel.ErrNoAnswer
	// SliceGVR is the Slice custom resource.
	SliceGVR = kernel.SliceGVR
)

// The Kueue API the Kueue + TAS path uses.
const (
	KueueGroup   = kernel.KueueGroup
	KueueVersion = kernel.KueueVersion
)

// KueueGVR is the Kueue resource (topologies, resourceflavors, ...).
func KueueGVR(resource string) schema.GroupVersionResource { return kernel.KueueGVR(resource) }

// NewClusterAt is the Cluster over a typed and a dynamic client of the API
// server at host, which errors then name.
func NewClusterAt(core kubernetes.Interface, dyn dynamic.Interface, host string) Cluster {
	return kernel.NewClusterAt(core, dyn, host)
}

// The engine's names for what its reads of the cluster
// (internal/engine/clusterread) share with callers.
type (
	// ClusterRef is the GKE cluster an engine is bound to.
	ClusterRef = clusterread.ClusterRef
	// ClusterAccessError is a read of the cluster that cannot go on.
	ClusterAccessError = clusterread.ClusterAccessError
	// WatchFailingError is a watch of a Slice that keeps failing.
	WatchFailingError = clusterread.WatchFailingError
	// Partition is one partition of the cluster's nodes.
	Partition = clusterread.Partition
	// PartitionFilter says which partitions ListPartitions returns.
	PartitionFilter = clusterread.PartitionFilter
	// DeviceAccess is how a slice's pods reach its chips.
	DeviceAccess = clusterread.DeviceAccess
	// Slice is a Slice object as the engine reads it.
	Slice = clusterread.Slice
	// Condition is one condition of a Slice.
	Condition = clusterread.Condition
)

// The device accesses of a slice.
const (
	DevicePlugin = clusterread.DevicePlugin
	DRA          = clusterread.DRA
)

// DeviceAccesses are the accepted values, the default first.
var DeviceAccesses = clusterread.DeviceAccesses

// The states of a Slice.
const (
	SliceNotCreated     = clusterread.SliceNotCreated
	SliceCreationFailed = clusterread.SliceCreationFailed
	SliceActivating     = clusterread.SliceActivating
	SliceActive         = clusterread.SliceActive
	SliceActiveDegraded = clusterread.SliceActiveDegraded
	SliceFailed         = clusterread.SliceFailed
	SliceDeactivating   = clusterread.SliceDeactivating
	SliceIncomplete     = clusterread.SliceIncomplete
)

// ErrKueueOwned marks an operation refused because Kueue owns the Slice.
var ErrKueueOwned = clusterread.ErrKueueOwned

// KueueOwnedError says that Kueue's admission check owns the Slice s.
func KueueOwnedError(s *Slice) error { return clusterread.KueueOwnedError(s) }

// The engine's names for the Kueue + TAS path (internal/engine/kueue).
type (
	// KueueSlicing is the set of Kueue objects the provider applies.
	KueueSlicing = kueue.KueueSlicing
	// KueuePlan is what a plan of a Kueue slicing knows.
	KueuePlan = kueue.KueuePlan
	// KueueVerdict is the plan-time verdict on a Kueue slicing.
	KueueVerdict = kueue.KueueVerdict
	// KueueOverflow is the optional flex-start overflow flavor.
	KueueOverflow = kueue.KueueOverflow
	// KueueSetupError lists why a Kueue set-up cannot work.
	KueueSetupError = kueue.KueueSetupError
	// KueueAPIError says that the cluster does not serve the Kueue API.
	KueueAPIError = kueue.KueueAPIError
	// KueuePoolProblem is what is wrong with one node pool.
	KueuePoolProblem = kueue.KueuePoolProblem
	// KueueNodePoolError lists node pools that cannot serve the queue.
	KueueNodePoolError = kueue.KueueNodePoolError
	// KueueNamespaceError lists namespaces that do not exist.
	KueueNamespaceError = kueue.KueueNamespaceError
	// KueueTopologyRule names a rule a workload topology breaks.
	KueueTopologyRule = kueue.KueueTopologyRule
	// KueueTopologyError is a workload topology the queue cannot admit.
	KueueTopologyError = kueue.KueueTopologyError
	// KueueOverflowError is an overflow flavor that cannot work.
	KueueOverflowError = kueue.KueueOverflowError
	// KueueWorkloadsAdmittedError refuses to delete a queue that admits
	// workloads.
	KueueWorkloadsAdmittedError = kueue.KueueWorkloadsAdmittedError
)

// The Kueue path's labels, annotations, controllers and defaults.
const (
	KueueSliceController            = kueue.KueueSliceController
	LabelQueueName                  = kueue.LabelQueueName
	AnnotationKueueNodePools        = kueue.AnnotationKueueNodePools
	KueueMinVersion                 = kueue.KueueMinVersion
	KueueTopologyInvalid            = kueue.KueueTopologyInvalid
	KueueTopologySubSlicing         = kueue.KueueTopologySubSlicing
	KueueTopologyQuota              = kueue.KueueTopologyQuota
	KueueTopologyBlock              = kueue.KueueTopologyBlock
	KueueProvisioningController     = kueue.KueueProvisioningController
	ClassQueuedProvisioning         = kueue.ClassQueuedProvisioning
	LabelQueued                     = kueue.LabelQueued
	TaintQueued                     = kueue.TaintQueued
	LabelTPUTopology                = kueue.LabelTPUTopology
	OverflowSuffix                  = kueue.OverflowSuffix
	AnnotationKueueOverflowPools    = kueue.AnnotationKueueOverflowPools
	AnnotationKueueOverflowTopology = kueue.AnnotationKueueOverflowTopology
	DefaultMaxRunDuration           = kueue.DefaultMaxRunDuration
	DefaultOverflowRetries          = kueue.DefaultOverflowRetries
)

var (
	// ErrKueueSetup marks a Kueue set-up that cannot work (the same
	// value as kueue.ErrKueueSetup, so errors.Is holds).
	ErrKueueSetup = kueue.ErrKueueSetup
	// KueueResources are the Kueue resources the provider needs.
	KueueResources = kueue.KueueResources
	// TPUToleration is the ResourceFlavor's toleration of the TPU taint.
	TPUToleration = kueue.TPUToleration
	// QueuedToleration is the overflow flavor's toleration.
	QueuedToleration = kueue.QueuedToleration
)

// The engine's names for the slices (internal/engine/tpuslice).
type (
	PartitionSelector        = tpuslice.PartitionSelector
	SliceRequest             = tpuslice.SliceRequest
	SliceShape               = tpuslice.SliceShape
	SliceReadOption          = tpuslice.SliceReadOption
	SliceUpdate              = tpuslice.SliceUpdate
	SliceDeleted             = tpuslice.SliceDeleted
	Wiring                   = tpuslice.Wiring
	ExistingSliceVerdict     = tpuslice.ExistingSliceVerdict
	NewSlicePlan             = tpuslice.NewSlicePlan
	NewSliceProblem          = tpuslice.NewSliceProblem
	NewSliceVerdict          = tpuslice.NewSliceVerdict
	SelectorCheck            = tpuslice.SelectorCheck
	SelectorVerdict          = tpuslice.SelectorVerdict
	ListedPartitionRule      = tpuslice.ListedPartitionRule
	DeviceAccessError        = tpuslice.DeviceAccessError
	ListedPartitionsError    = tpuslice.ListedPartitionsError
	NotFormableError         = tpuslice.NotFormableError
	RetryOnFailureError      = tpuslice.RetryOnFailureError
	SelectionError           = tpuslice.SelectionError
	SelectionNotCheckedError = tpuslice.SelectionNotCheckedError
	SelectorBlockError       = tpuslice.SelectorBlockError
)

// The slices' constants: the read option, the claim, the verdicts and
// problems of a plan, the rules of listed partitions.
const (
	WithDeviceAccess     = tpuslice.WithDeviceAccess
	ClaimName            = tpuslice.ClaimName
	NoProblem            = tpuslice.NoProblem
	ClusterUnreadable    = tpuslice.ClusterUnreadable
	DeviceAccessMismatch = tpuslice.DeviceAccessMismatch
	PartitionsInvalid    = tpuslice.PartitionsInvalid
	PartitionsUnusable   = tpuslice.PartitionsUnusable
	SelectionNotChecked  = tpuslice.SelectionNotChecked
	SelectionUnmet       = tpuslice.SelectionUnmet
	VersionTooOld        = tpuslice.VersionTooOld
	VersionUnknown       = tpuslice.VersionUnknown
	SelectorHolds        = tpuslice.SelectorHolds
	SelectorBroken       = tpuslice.SelectorBroken
	SelectorUnknown      = tpuslice.SelectorUnknown
	SelectorBlockUnknown = tpuslice.SelectorBlockUnknown
	ListedOtherShape     = tpuslice.ListedOtherShape
	ListedTwoBlocks      = tpuslice.ListedTwoBlocks
)

var (
	// ErrSelection, ErrNotFormable and ErrVersionUnknown are tpuslice's
	// values, so errors.Is holds.
	ErrSelection      = tpuslice.ErrSelection
	ErrNotFormable    = tpuslice.ErrNotFormable
	ErrVersionUnknown = tpuslice.ErrVersionUnknown
)

// ShapeOf is the shape of the slice name of topology topo, or the
// topology's error.
func ShapeOf(name, topo string) (SliceShape, error) { return tpuslice.ShapeOf(name, topo) }

// WiringOf is the wiring of a pod on the slice name with the access.
func WiringOf(name string, access DeviceAccess) Wiring { return tpuslice.WiringOf(name, access) }

// The day-2 names (package day2).
type (
	MaintenanceCompute        = day2.MaintenanceCompute
	ProgressFunc              = day2.ProgressFunc
	SubBlockUse               = day2.SubBlockUse
	MaintenanceRequest        = day2.MaintenanceRequest
	MaintenanceResult         = day2.MaintenanceResult
	NoPendingMaintenanceError = day2.NoPendingMaintenanceError
	SubBlocksInUseError       = day2.SubBlocksInUseError
	PartitionMaintenance      = day2.PartitionMaintenance
	FaultReason               = day2.FaultReason
	FaultReport               = day2.FaultReport
	FaultResult               = day2.FaultResult
	ResourcePolicyLister      = day2.ResourcePolicyLister
	ListedSlice               = day2.ListedSlice
)

var (
	// ErrNoMaintenanceAPI and ErrListUnsupported are day2's values, so
	// errors.Is holds.
	ErrNoMaintenanceAPI = day2.ErrNoMaintenanceAPI
	ErrListUnsupported  = day2.ErrListUnsupported
	// The values the Compute API takes in fault reports.
	SubBlockFailureComponents = day2.SubBlockFailureComponents
	SubBlockFaultBehaviors    = day2.SubBlockFaultBehaviors
	HostFaultBehaviors        = day2.HostFaultBehaviors
	DisruptionSchedules       = day2.DisruptionSchedules
)

// The node pool names (package nodepool).
type (
	NodePoolSpec   = nodepool.Spec
	NodePool       = nodepool.Pool
	Taint          = nodepool.Taint
	PoolReadOption = nodepool.ReadOption
)

// The wait targets of a new node pool's partition, and the read option.
const (
	WaitLabelled       = nodepool.WaitLabelled
	WaitHealthy        = nodepool.WaitHealthy
	WaitUsable         = nodepool.WaitUsable
	SummariseUnhealthy = nodepool.SummariseUnhealthy
)

// WaitTargets lists the wait targets, for the schema.
var WaitTargets = nodepool.WaitTargets

// The reservation reads of internal/engine/reservation, by the names
// callers use.
type (
	// SubBlock is one reservation sub-block: 16 hosts, one 4x4x4 partition.
	SubBlock = reservation.SubBlock
	// Block is a reservation block with its sub-blocks, sorted by name.
	Block = reservation.Block
	// Target says where a node pool goes: a block, or one of its sub-blocks.
	Target = reservation.Target
	// SubBlocks is a reservation block as gke_reservation_sub_blocks shows it.
	SubBlocks = reservation.SubBlocks
	// MaintenanceReadError is a read of the block's sub-blocks' maintenance
	// that failed after the block was read.
	MaintenanceReadError = reservation.MaintenanceReadError
	// SubBlockMaintenance is the maintenance of one sub-block.
	SubBlockMaintenance = reservation.SubBlockMaintenance
	// ReservationBlockLister lists the block names of a reservation,
	// beside Compute: a block that is not found is reported with the
	// blocks that exist.
	ReservationBlockLister = reservation.BlockLister
)

// Maintenance states of a sub-block, as the Compute API's
// UpcomingMaintenance.maintenanceStatus names them.
const (
	MaintenanceNone    = reservation.MaintenanceNone
	MaintenancePending = reservation.MaintenancePending
	MaintenanceOngoing = reservation.MaintenanceOngoing
)

// NodePoolList is the sub-block node pools of a cluster, and the names of
// its other pools, which gke_subblock_node_pool cannot manage.
type NodePoolList = day2.NodePoolList
