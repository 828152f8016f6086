package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
)

// warnMaintenance warns of the maintenance that the slice's plan found on
// its partitions' sub-blocks: the slice stops when the maintenance runs. A
// warning, not an error: the plan stands. The engine found it in its
// shared reads (the partition inventory, the node pool list, and each
// block's maintenance once per plan), with no request per slice. A failed
// read is logged, never reported: the warning is advice.
func warnMaintenance(ctx context.Context, resp *resource.ModifyPlanResponse, got tpuslice.SlicePlanned) {
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
