package engine

import (
	"context"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
)

// The day-2 actions are package day2's: the front forwards them, and
// serves day2 the operations it owns (deleting a slice or a node pool,
// reading a pool's block) through day2Front.

// PerformMaintenance starts pending maintenance on a sub-block or a block.
// It refuses sub-blocks in use unless req.Drain; with it, it deletes their
// slices and then their node pools first, reporting each step. ctx bounds
// it all.
func (e *Engine) PerformMaintenance(ctx context.Context, req MaintenanceRequest, progress ProgressFunc) (MaintenanceResult, error) {
	return e.day2.PerformMaintenance(ctx, req, progress)
}

// ReportFaulty reports a sub-block (reservationSubBlocks.reportFaulty) or
// a host (instances.reportHostAsFaulty) as faulty and waits for the
// operation. For a sub-block it first finds what runs there, so that the
// caller can say what the disruption stops.
func (e *Engine) ReportFaulty(ctx context.Context, r FaultReport, progress ProgressFunc) (FaultResult, error) {
	return e.day2.ReportFaulty(ctx, r, progress)
}

// ListWorkloadPolicies returns the workload policies of a region (resource
// policies of other kinds, such as snapshot schedules, are left out),
// sorted by name, as ReadWorkloadPolicy reports each.
func (e *Engine) ListWorkloadPolicies(ctx context.Context, project, region string) ([]*WorkloadPolicy, error) {
	return e.day2.ListWorkloadPolicies(ctx, project, region)
}

// ListSlices lists the cluster's Slices (they are cluster-scoped), sorted
// by name. Slices that Kueue made are listed with NotImportable set.
func (e *Engine) ListSlices(ctx context.Context) ([]ListedSlice, error) {
	return e.day2.ListSlices(ctx)
}

// partitionsMaintenance is the maintenance pending or in progress on the
// sub-blocks of the partitions ids of a slice of topology topo (see
// day2.Ops.PartitionsMaintenance).
func (e *Engine) partitionsMaintenance(ctx context.Context, topo string, ids []string) ([]PartitionMaintenance, error) {
	return e.day2.PartitionsMaintenance(ctx, topo, ids)
}

// day2Front is the engine as day2.Front.
type day2Front struct{ e *Engine }

func (f day2Front) DeleteSlice(ctx context.Context, name string) (string, error) {
	d, err := f.e.DeleteSlice(ctx, name, false)
	return d.KueueWorkload, err
}

func (f day2Front) DeleteNodePool(ctx context.Context, id string) error {
	return f.e.DeleteNodePool(ctx, id)
}

func (f day2Front) ReadNodePool(ctx context.Context, id string) (*NodePool, error) {
	return f.e.ReadNodePool(ctx, id)
}

func (f day2Front) AccessOf(ctx context.Context, topo string, ids []string) clusterread.DeviceAccess {
	return f.e.slices.AccessOf(ctx, topo, ids)
}
