package day2

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

// MaintenanceCompute is what the day-2 actions need from the Compute
// Engine API, beside Compute. Each call returns the zonal operation it
// started, which the engine waits for.
type MaintenanceCompute interface {
	PerformSubBlockMaintenance(ctx context.Context, project, zone, reservation, block, subBlock string) (kernel.Operation, error)
	PerformBlockMaintenance(ctx context.Context, project, zone, reservation, block, scope string) (kernel.Operation, error)
	ReportSubBlockFaulty(ctx context.Context, project, zone, reservation, block, subBlock string, req *computepb.ReservationSubBlocksReportFaultyRequest) (kernel.Operation, error)
	ReportHostAsFaulty(ctx context.Context, project, zone, instance string, req *computepb.InstancesReportHostAsFaultyRequest) (kernel.Operation, error)
}

// ErrNoMaintenanceAPI is returned when the engine's Compute client cannot
// start maintenance or report faults.
var ErrNoMaintenanceAPI = errors.New("this provider's Compute Engine client cannot call the maintenance and fault-report methods")

// maintenanceAPI is the engine's Compute client as a MaintenanceCompute.
func (o *Ops) maintenanceAPI() (MaintenanceCompute, error) {
	m, ok := o.compute.(MaintenanceCompute)
	if !ok {
		return nil, ErrNoMaintenanceAPI
	}
	return m, nil
}

// ProgressFunc receives a message for the user while a long action runs.
type ProgressFunc func(message string)

// SubBlockUse is what runs on a reservation sub-block: the node pool
// placed on it and the slices whose partitions are on its nodes.
type SubBlockUse struct {
	SubBlock string
	NodePool string
	Slices   []string
}

// InUse says whether anything runs on the sub-block.
func (u SubBlockUse) InUse() bool { return u.NodePool != "" || len(u.Slices) > 0 }

func (u SubBlockUse) String() string {
	var parts []string
	if len(u.Slices) > 0 {
		parts = append(parts, "slice(s) "+strings.Join(u.Slices, ", "))
	}
	if u.NodePool != "" {
		parts = append(parts, "node pool "+u.NodePool)
	}
	return u.SubBlock + ": " + strings.Join(parts, " and ")
}

// MaintenanceRequest asks to start the pending maintenance of one
// sub-block, or of every sub-block of a block that has some.
type MaintenanceRequest struct {
	Project, Zone, Reservation, Block string
	// SubBlock is the sub-block; empty means the whole block.
	SubBlock string
	// Drain deletes, first, the slices and the node pool (of the
	// engine's cluster) on the sub-blocks; without it maintenance of a sub-block in use is refused.
	Drain bool
}

// MaintenanceResult is what a started maintenance did.
type MaintenanceResult struct {
	// SubBlocks are the sub-blocks whose maintenance was started.
	SubBlocks []string
	// DeletedSlices and DeletedNodePools are what the drain removed (the
	// next terraform apply recreates those Terraform manages).
	DeletedSlices, DeletedNodePools []string
	// KeptSlices are slices Kueue owns, which the drain left to Kueue:
	// their nodes went with the node pool.
	KeptSlices []string
}

// NoPendingMaintenanceError refuses maintenance where none is pending.
type NoPendingMaintenanceError struct {
	Target string
	// Ongoing names the sub-blocks already in maintenance.
	Ongoing []string
}

func (e *NoPendingMaintenanceError) Error() string {
	msg := fmt.Sprintf("%s has no pending maintenance to start", e.Target)
	if len(e.Ongoing) > 0 {
		msg += fmt.Sprintf(" (maintenance is already in progress on %s)", strings.Join(e.Ongoing, ", "))
	}
	return msg + ". Google announces maintenance ahead; the data source gke_reservation_sub_blocks shows it per sub-block (maintenance_status PENDING)."
}

// SubBlocksInUseError refuses maintenance of sub-blocks that slices or a
// node pool use, as Google advises for All Capacity mode reservations.
type SubBlocksInUseError struct {
	Target string
	Uses   []SubBlockUse
}

func (e *SubBlocksInUseError) Error() string {
	lines := make([]string, len(e.Uses))
	for i, u := range e.Uses {
		lines[i] = "  " + u.String()
	}
	return fmt.Sprintf("maintenance of %s would stop what runs there:\n%s\n"+
		"Google advises deleting the GKE node pool before starting maintenance by hand. Set drain = true to have the provider delete "+
		"these slices and node pools first (the next terraform apply recreates those Terraform manages, once the maintenance is done), "+
		"or move the workloads and remove them from the configuration.", e.Target, strings.Join(lines, "\n"))
}

// PerformMaintenance starts pending maintenance on a sub-block or a block.
// It refuses sub-blocks in use unless req.Drain; with it, it deletes their
// slices and then their node pools first, reporting each step. ctx bounds
// it all.
func (o *Ops) PerformMaintenance(ctx context.Context, req MaintenanceRequest, progress ProgressFunc) (MaintenanceResult, error) {
	var res MaintenanceResult
	api, err := o.maintenanceAPI()
	if err != nil {
		return res, err
	}
	target := fmt.Sprintf("reservation block %s/%s", req.Reservation, req.Block)
	if req.SubBlock != "" {
		target = fmt.Sprintf("reservation sub-block %s/%s/%s", req.Reservation, req.Block, req.SubBlock)
	}
	progress(fmt.Sprintf("Reading the maintenance of %s", target))
	o.res.ForgetMaintenance(req.Project, req.Zone, req.Reservation, req.Block)
	maint, err := o.res.BlockMaintenance(ctx, req.Project, req.Zone, req.Reservation, req.Block)
	if err != nil {
		return res, err
	}
	picked, err := pickMaintenance(maint, req.SubBlock, target)
	if err != nil {
		return res, err
	}
	uses, err := o.subBlockUses(ctx, req.Project, req.Zone, req.Reservation, req.Block, picked)
	if err != nil {
		return res, err
	}
	if len(uses) > 0 && !req.Drain {
		return res, &SubBlocksInUseError{Target: target, Uses: uses}
	}
	if len(uses) > 0 {
		if err := o.drain(ctx, o.reads.Name(), uses, progress, &res); err != nil {
			return res, err
		}
	}
	for _, m := range picked {
		res.SubBlocks = append(res.SubBlocks, m.SubBlock)
	}
	if req.SubBlock != "" {
		progress(fmt.Sprintf("Starting maintenance of %s (performMaintenance) and waiting for its operation", target))
		op, perr := api.PerformSubBlockMaintenance(ctx, req.Project, req.Zone, req.Reservation, req.Block, req.SubBlock)
		err = o.wait(ctx, op, perr)
	} else {
		progress(fmt.Sprintf("Starting maintenance of %s: sub-block(s) %s (performMaintenance) and waiting for its operation", target, strings.Join(res.SubBlocks, ", ")))
		op, perr := api.PerformBlockMaintenance(ctx, req.Project, req.Zone, req.Reservation, req.Block, "ALL")
		err = o.wait(ctx, op, perr)
	}
	o.res.ForgetMaintenance(req.Project, req.Zone, req.Reservation, req.Block)
	if err != nil && o.maintenanceLeftPending(ctx, req, picked) {
		return res, fmt.Errorf("starting maintenance of %s: %s", target, kernel.APIMessage(err))
	}
	if err != nil {
		// The transport retries a POST whose connection dropped: an
		// attempt that was applied leaves nothing pending, and the
		// retry is refused. The maintenance did start.
		progress(fmt.Sprintf("The request was answered %q, but no maintenance of %s is pending any more: an earlier attempt started it", kernel.APIMessage(err), target))
	}
	progress(fmt.Sprintf("Maintenance of %s is in progress", target))
	return res, nil
}

// maintenanceLeftPending says whether any of picked still has maintenance
// pending after a request to start it failed (or whether that cannot be
// read, which counts as pending: the failure is reported).
func (o *Ops) maintenanceLeftPending(ctx context.Context, req MaintenanceRequest, picked []reservation.SubBlockMaintenance) bool {
	maint, err := o.res.BlockMaintenance(ctx, req.Project, req.Zone, req.Reservation, req.Block)
	if err != nil {
		return true
	}
	status := map[string]string{}
	for _, m := range maint {
		status[m.SubBlock] = m.Status
	}
	for _, m := range picked {
		if s, ok := status[m.SubBlock]; !ok || s == reservation.MaintenancePending {
			return true
		}
	}
	return false
}

// pickMaintenance is the sub-blocks whose pending maintenance a request
// starts: the named one, or every one of the block with some pending.
func pickMaintenance(maint []reservation.SubBlockMaintenance, subBlock, target string) ([]reservation.SubBlockMaintenance, error) {
	var picked []reservation.SubBlockMaintenance
	var ongoing []string
	found := subBlock == ""
	for _, m := range maint {
		if subBlock != "" && m.SubBlock != subBlock {
			continue
		}
		found = true
		switch m.Status {
		case reservation.MaintenancePending:
			picked = append(picked, m)
		case reservation.MaintenanceOngoing:
			ongoing = append(ongoing, m.SubBlock)
		}
	}
	if !found {
		return nil, fmt.Errorf("%s was not found: the block has no sub-block %q", target, subBlock)
	}
	if len(picked) == 0 {
		return nil, &NoPendingMaintenanceError{Target: target, Ongoing: ongoing}
	}
	return picked, nil
}
