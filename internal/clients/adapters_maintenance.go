package clients

import (
	"context"
	"fmt"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
)

// The day-2 methods of engine.MaintenanceCompute: each waits for its
// zonal operation (bounded by ctx) and returns the operation's error.
var _ engine.MaintenanceCompute = computeAdapter{}

func subBlockParent(reservation, block string) string {
	return fmt.Sprintf("reservations/%s/reservationBlocks/%s", reservation, block)
}

func (a computeAdapter) PerformSubBlockMaintenance(ctx context.Context, project, zone, reservation, block, subBlock string) error {
	op, err := a.s.reservationSubBlocks.PerformMaintenance(ctx, &computepb.PerformMaintenanceReservationSubBlockRequest{
		Project: project, Zone: zone, ParentName: subBlockParent(reservation, block), ReservationSubBlock: subBlock,
	}, noRetry)
	if err != nil {
		return err
	}
	return waitCompute(ctx, op)
}

func (a computeAdapter) PerformBlockMaintenance(ctx context.Context, project, zone, reservation, block, scope string) error {
	op, err := a.s.reservationBlocks.PerformMaintenance(ctx, &computepb.PerformMaintenanceReservationBlockRequest{
		Project: project, Zone: zone, Reservation: reservation, ReservationBlock: block,
		ReservationsBlocksPerformMaintenanceRequestResource: &computepb.ReservationsBlocksPerformMaintenanceRequest{MaintenanceScope: proto.String(scope)},
	}, noRetry)
	if err != nil {
		return err
	}
	return waitCompute(ctx, op)
}

func (a computeAdapter) ReportSubBlockFaulty(ctx context.Context, project, zone, reservation, block, subBlock string, req *computepb.ReservationSubBlocksReportFaultyRequest) error {
	op, err := a.s.reservationSubBlocks.ReportFaulty(ctx, &computepb.ReportFaultyReservationSubBlockRequest{
		Project: project, Zone: zone, ParentName: subBlockParent(reservation, block), ReservationSubBlock: subBlock,
		ReservationSubBlocksReportFaultyRequestResource: req,
	}, noRetry)
	if err != nil {
		return err
	}
	return waitCompute(ctx, op)
}

func (a computeAdapter) ReportHostAsFaulty(ctx context.Context, project, zone, instance string, req *computepb.InstancesReportHostAsFaultyRequest) error {
	op, err := a.s.instances.ReportHostAsFaulty(ctx, &computepb.ReportHostAsFaultyInstanceRequest{
		Project: project, Zone: zone, Instance: instance, InstancesReportHostAsFaultyRequestResource: req,
	}, noRetry)
	if err != nil {
		return err
	}
	return waitCompute(ctx, op)
}
