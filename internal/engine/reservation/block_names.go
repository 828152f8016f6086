package reservation

import (
	"context"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// BlockLister lists the block names of a reservation
// (reservationBlocks.list), beside Compute: a reservation block that is
// not found is reported with the blocks that exist.
type BlockLister interface {
	ListReservationBlocks(ctx context.Context, project, zone, reservation string) ([]string, error)
}

// existingBlocks is "; its blocks are: a, b" for the reservation, or ""
// when the Compute client cannot list them or the list fails.
func (r *Reservations) existingBlocks(ctx context.Context, project, zone, reservation string) string {
	l, ok := r.compute.(BlockLister)
	if !ok {
		return ""
	}
	names, err := l.ListReservationBlocks(ctx, project, zone, reservation)
	if err != nil {
		tflog.Debug(ctx, "Cannot list the blocks of a reservation", map[string]any{"reservation": reservation, "error": kernel.APIMessage(err)})
		return ""
	}
	if len(names) == 0 {
		return "; it has no blocks"
	}
	slices.Sort(names)
	return "; its blocks are: " + strings.Join(names, ", ")
}
