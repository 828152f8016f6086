package engine

import "context"

// ReservationSubBlocks reads the block with the pools of the engine's
// cluster on its sub-blocks, then the sub-blocks' maintenance (which
// shares the block's read). A failure of the second is a
// MaintenanceReadError.
func (e *Engine) ReservationSubBlocks(ctx context.Context, project, zone, reservation, block string) (SubBlocks, error) {
	return e.res.ReadSubBlocks(ctx, e.reads.Name(), project, zone, reservation, block)
}
