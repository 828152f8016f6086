package clients

import (
	"context"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"
)

// ListReservationSlots is the reservation slots of a sub-block
// (reservationSlots.list, every page): Compute Engine's view of its hosts.
func (a computeAdapter) ListReservationSlots(ctx context.Context, project, zone, reservation, block, subBlock string) ([]*computepb.ReservationSlot, error) {
	parent := "reservations/" + reservation + "/reservationBlocks/" + block + "/reservationSubBlocks/" + subBlock
	it := a.s.reservationSlots.List(ctx, &computepb.ListReservationSlotsRequest{Project: project, Zone: zone, ParentName: parent}, noRetry)
	var out []*computepb.ReservationSlot
	for {
		s, err := it.Next()
		if err == iterator.Done {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
}
