package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
)

// planChecks makes the last checks of a slice's plan, in one call of the
// engine: a device_access changed to one that the slice's partitions'
// nodes do not offer is refused (access, from accessChange); then
// maintenance on the partitions' sub-blocks is warned of.
//
// The warning: the slice stops when the maintenance runs. A warning, not
// an error: the plan stands. It reuses the plan's partition IDs and the
// engine's shared reads (the partition inventory, the node pool list, and
// each block's maintenance once per plan), so it adds no request per
// slice. A failed read is logged, never reported: the warning is advice.
func (r *tpuSliceResource) planChecks(ctx context.Context, resp *resource.ModifyPlanResponse, m tpuSliceModel, access *engine.DeviceAccess) {
	if r.clients == nil || m.PartitionIDs.IsUnknown() {
		return
	}
	var ids []string
	if diags := m.PartitionIDs.ElementsAs(ctx, &ids, false); diags.HasError() {
		return
	}
	checks := engine.SliceChecks{Topology: m.Topology.ValueString(), PartitionIDs: ids, Access: access, Maintenance: !m.PartitionIDs.IsNull() && len(ids) > 0}
	if checks.Access == nil && !checks.Maintenance {
		return
	}
	e, err := r.clients.Engine()
	if err != nil {
		return
	}
	got := e.PlanSliceChecks(ctx, checks)
	if isA[*engine.DeviceAccessError](got.AccessErr) {
		resp.Diagnostics.Append(sliceVerdictDiagnostics(engine.NewSliceVerdict{Problem: engine.DeviceAccessMismatch, Err: got.AccessErr})...)
	}
	warnMaintenance(ctx, resp, got)
}

// warnMaintenance warns of the maintenance that planChecks found.
func warnMaintenance(ctx context.Context, resp *resource.ModifyPlanResponse, got engine.SliceChecked) {
	if got.MaintenanceErr != nil {
		tflog.Debug(ctx, "Could not read the maintenance of the slice's sub-blocks", map[string]any{"error": got.MaintenanceErr.Error()})
		return
	}
	found := got.Maintenance
	if len(found) == 0 {
		return
	}
	lines := make([]string, len(found))
	for i, f := range found {
		lines[i] = "  " + f.String()
	}
	resp.Diagnostics.AddAttributeWarning(path.Root("partition_ids"), "Maintenance on the Slice's Sub-Blocks",
		"Compute Engine reports maintenance pending or in progress where this slice's partitions are:\n"+strings.Join(lines, "\n")+
			"\nThe slice stops while its hosts are maintained. Choose partitions elsewhere (gke_reservation_sub_blocks shows maintenance_status per sub-block), "+
			"or start the maintenance at a time you choose with the action gke_perform_maintenance (drain = true) before the window.")
}
