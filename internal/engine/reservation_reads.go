package engine

import (
	"context"

	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

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

// ReservationSubBlocks reads the block with the pools of the engine's
// cluster on its sub-blocks, then the sub-blocks' maintenance (which
// shares the block's read). A failure of the second is a
// MaintenanceReadError.
func (e *Engine) ReservationSubBlocks(ctx context.Context, project, zone, reservation, block string) (SubBlocks, error) {
	return e.res.ReadSubBlocks(ctx, e.reads.Name(), project, zone, reservation, block)
}

// targetOf is the reservation target of the pool p (reservation.TargetOf).
func targetOf(p *container.NodePool) reservation.PoolTarget { return reservation.TargetOf(p) }
