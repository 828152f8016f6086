package clients

import (
	"context"
	"fmt"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine/day2"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// The day-2 methods of day2.MaintenanceCompute: each returns the zonal
// operation it started, which the engine waits for.
var _ day2.MaintenanceCompute = computeAdapter{}

func subBlockParent(reservation, block string) string {
	return fmt.Sprintf("reservations/%s/reservationBlocks/%s", reservation, block)
}

func (a computeAdapter) PerformSubBlockMaintenance(ctx context.Context, project, zone, reservation, block, subBlock string) (kernel.Operation, error) {
	return startedCompute(a.s.reservationSubBlocks.PerformMaintenance(ctx, &computepb.PerformMaintenanceReservationSubBlockRequest{
		Project: project, Zone: zone, ParentName: subBlockParent(reservation, block), ReservationSubBlock: subBlock,
	}, noRetry))
}

func (a computeAdapter) PerformBlockMaintenance(ctx context.Context, project, zone, reservation, block, scope string) (kernel.Operation, error) {
	return startedCompute(a.s.reservationBlocks.PerformMaintenance(ctx, &computepb.PerformMaintenanceReservationBlockRequest{
		Project: project, Zone: zone, Reservation: reservation, ReservationBlock: block,
		ReservationsBlocksPerformMaintenanceRequestResource: &computepb.ReservationsBlocksPerformMaintenanceRequest{MaintenanceScope: proto.String(scope)},
	}, noRetry))
}

func (a computeAdapter) ReportSubBlockFaulty(ctx context.Context, project, zone, reservation, block, subBlock string, req *computepb.ReservationSubBlocksReportFaultyRequest) (kernel.Operation, error) {
	return startedCompute(a.s.reservationSubBlocks.ReportFaulty(ctx, &computepb.ReportFaultyReservationSubBlockRequest{
		Project: project, Zone: zone, ParentName: subBlockParent(reservation, block), ReservationSubBlock: subBlock,
		ReservationSubBlocksReportFaultyRequestResource: req,
	}, noRetry))
}

func (a computeAdapter) ReportHostAsFaulty(ctx context.Context, project, zone, instance string, req *computepb.InstancesReportHostAsFaultyRequest) (kernel.Operation, error) {
	return startedCompute(a.s.instances.ReportHostAsFaulty(ctx, &computepb.ReportHostAsFaultyInstanceRequest{
		Project: project, Zone: zone, Instance: instance, InstancesReportHostAsFaultyRequestResource: req,
	}, noRetry))
}
