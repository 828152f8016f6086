package sandbox

import "github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"

// The inventory and its sub-blocks are the emulated cloud's (package
// cloud); their names stay here for the tests, benchmarks and commands
// that use the sandbox.

// Inventory is the sandbox's picture of a project (cloud.Inventory).
type Inventory = cloud.Inventory

// Reservation is a zonal TPU7x reservation in All Capacity mode.
type Reservation = cloud.Reservation

// Block is a reservation block: a group of sub-blocks with full ICI reach.
type Block = cloud.Block

// SubBlock is 16 hosts: one 4x4x4 partition.
type SubBlock = cloud.SubBlock

// HostsPerSubBlock is the number of tpu7x-standard-4t hosts in one
// reservation sub-block (one 4x4x4 partition).
const HostsPerSubBlock = cloud.HostsPerSubBlock

// Host health values, as the Compute API and the sandbox controls name them.
const (
	HostHealthy   = cloud.HostHealthy
	HostDegraded  = cloud.HostDegraded
	HostUnhealthy = cloud.HostUnhealthy
)

// Maintenance states of a sub-block, as UpcomingMaintenance.maintenanceStatus
// names them.
const (
	MaintenancePending = cloud.MaintenancePending
	MaintenanceOngoing = cloud.MaintenanceOngoing
)

// DefaultClusterVersion is the GKE version the sandbox cluster runs unless
// the inventory says otherwise (cloud.DefaultClusterVersion).
const DefaultClusterVersion = cloud.DefaultClusterVersion

// DefaultInventory is one reservation with two blocks of four sub-blocks.
func DefaultInventory() *Inventory { return cloud.DefaultInventory() }

// PodInventory is one reservation with one block of 144 sub-blocks: a full
// 9216-chip Ironwood pod, for benchmarks at scale.
func PodInventory() *Inventory { return cloud.PodInventory() }

// PodsInventory is pods full pods (see cloud.PodsInventory).
func PodsInventory(pods int) *Inventory { return cloud.PodsInventory(pods) }

// PodBlockName is the name of pod i (1-based) of PodsInventory.
func PodBlockName(i int) string { return cloud.PodBlockName(i) }

// LoadInventory reads an inventory file, or a built-in one by name
// ("default" or "pod").
func LoadInventory(pathOrName string) (*Inventory, error) { return cloud.LoadInventory(pathOrName) }

// ParseInventory reads and checks an inventory document.
func ParseInventory(b []byte) (*Inventory, error) { return cloud.ParseInventory(b) }
