package clients

import (
	"context"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"

	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

var _ reservation.BlockLister = computeAdapter{}

// ListReservationBlocks is the block names of a reservation
// (reservationBlocks.list).
func (a computeAdapter) ListReservationBlocks(ctx context.Context, project, zone, reservation string) ([]string, error) {
	it := a.s.reservationBlocks.List(ctx, &computepb.ListReservationBlocksRequest{Project: project, Zone: zone, Reservation: reservation}, noRetry)
	var out []string
	for {
		b, err := it.Next()
		if err == iterator.Done {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, b.GetName())
	}
}
