package day2

import (
	"context"
	"fmt"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

// FaultReason is one reason of a fault report: the behavior as the
// Compute API names it, and a free description.
type FaultReason struct {
	Behavior, Description string
}

// Values the Compute API takes in fault reports.
var (
	// SubBlockFailureComponents are ReservationSubBlocksReportFaultyRequest.failureComponent values.
	SubBlockFailureComponents = []string{"MULTIPLE_FAULTY_HOSTS", "NVLINK_SWITCH"}
	// SubBlockFaultBehaviors are its faultReasons[].behavior values.
	SubBlockFaultBehaviors = []string{"GPU_ERROR", "NVSWITCH_FAULT_CONTROLLER_ERROR", "NVSWITCH_FAULT_DEGRADED_BANDWIDTH",
		"NVSWITCH_FAULT_SWITCH_ERROR", "PERFORMANCE", "SILENT_DATA_CORRUPTION", "SWITCH_FAILURE"}
	// HostFaultBehaviors are InstancesReportHostAsFaultyRequest.faultReasons[].behavior values.
	HostFaultBehaviors = []string{"CHIP_ERROR", "PERFORMANCE", "SILENT_DATA_CORRUPTION", "UNRECOVERABLE_GPU_ERROR"}
	// DisruptionSchedules are the disruptionSchedule values both take.
	DisruptionSchedules = []string{"IMMEDIATE"}
)

// FaultReport reports a reservation sub-block, or the host of one VM
// (instance), as faulty.
type FaultReport struct {
	Project, Zone string
	// Reservation, Block and SubBlock name the sub-block; Instance the VM
	// (a GKE node's name is its VM's). Exactly one of SubBlock and
	// Instance is set.
	Reservation, Block, SubBlock string
	Instance                     string
	// FailureComponent applies to sub-blocks only.
	FailureComponent   string
	DisruptionSchedule string
	Reasons            []FaultReason
}

// FaultResult is what a fault report touched.
type FaultResult struct {
	// Target is the reported sub-block or instance, as a resource path.
	Target string
	// Uses is what ran on the reported sub-block: it loses its hosts
	// until Google repairs them (days for TPU hosts).
	Uses []SubBlockUse
}

// ReportFaulty reports a sub-block (reservationSubBlocks.reportFaulty) or
// a host (instances.reportHostAsFaulty) as faulty and waits for the
// operation. For a sub-block it first finds what runs there, so that the
// caller can say what the disruption stops.
func (o *Ops) ReportFaulty(ctx context.Context, r FaultReport, progress ProgressFunc) (FaultResult, error) {
	var res FaultResult
	api, err := o.maintenanceAPI()
	if err != nil {
		return res, err
	}
	if r.Instance != "" {
		res.Target = fmt.Sprintf("projects/%s/zones/%s/instances/%s", r.Project, r.Zone, r.Instance)
		req := &computepb.InstancesReportHostAsFaultyRequest{DisruptionSchedule: proto.String(r.DisruptionSchedule)}
		for _, fr := range r.Reasons {
			req.FaultReasons = append(req.FaultReasons, &computepb.InstancesReportHostAsFaultyRequestFaultReason{
				Behavior: proto.String(fr.Behavior), Description: proto.String(fr.Description)})
		}
		progress(fmt.Sprintf("Reporting the host of instance %s as faulty (instances.reportHostAsFaulty) and waiting for its operation", r.Instance))
		op, err := api.ReportHostAsFaulty(ctx, r.Project, r.Zone, r.Instance, req)
		if err := o.wait(ctx, op, err); err != nil {
			if kernel.IsNotFound(err) {
				return res, fmt.Errorf("instance %s was not found in projects/%s/zones/%s: name a VM of the zone (a GKE node's name is its VM's)", r.Instance, r.Project, r.Zone)
			}
			return res, fmt.Errorf("reporting the host of instance %s as faulty: %s", r.Instance, kernel.APIMessage(err))
		}
		return res, nil
	}
	res.Target = reservation.Target{Project: r.Project, Zone: r.Zone, Reservation: r.Reservation, Block: r.Block, SubBlock: r.SubBlock}.Path()
	uses, err := o.subBlockUses(ctx, r.Project, r.Zone, r.Reservation, r.Block, []reservation.SubBlockMaintenance{{SubBlock: r.SubBlock}})
	if err != nil {
		return res, err
	}
	res.Uses = uses
	req := &computepb.ReservationSubBlocksReportFaultyRequest{
		DisruptionSchedule: proto.String(r.DisruptionSchedule),
		FailureComponent:   proto.String(r.FailureComponent),
	}
	for _, fr := range r.Reasons {
		req.FaultReasons = append(req.FaultReasons, &computepb.ReservationSubBlocksReportFaultyRequestFaultReason{
			Behavior: proto.String(fr.Behavior), Description: proto.String(fr.Description)})
	}
	progress(fmt.Sprintf("Reporting reservation sub-block %s/%s/%s as faulty (reportFaulty) and waiting for its operation", r.Reservation, r.Block, r.SubBlock))
	op, err := api.ReportSubBlockFaulty(ctx, r.Project, r.Zone, r.Reservation, r.Block, r.SubBlock, req)
	if err := o.wait(ctx, op, err); err != nil {
		if kernel.IsNotFound(err) {
			return res, fmt.Errorf("reservation sub-block %s/%s/%s was not found in projects/%s/zones/%s", r.Reservation, r.Block, r.SubBlock, r.Project, r.Zone)
		}
		return res, fmt.Errorf("reporting reservation sub-block %s/%s/%s as faulty: %s", r.Reservation, r.Block, r.SubBlock, kernel.APIMessage(err))
	}
	o.res.ForgetMaintenance(r.Project, r.Zone, r.Reservation, r.Block)
	return res, nil
}
