package provider

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// warnMaintenance warns at plan when the slice's partitions sit on
// reservation sub-blocks with maintenance pending or in progress: the
// slice stops when it runs. A warning, not an error: the plan stands. It
// reuses the plan's partition IDs and the engine's shared reads (the
// partition inventory, the node pool list, and each block's maintenance
// once per plan), so it adds no request per slice. A failed read is
// logged, never reported: the warning is advice.
func (r *tpuSliceResource) warnMaintenance(ctx context.Context, resp *resource.ModifyPlanResponse, m tpuSliceModel) {
	if r.clients == nil || m.PartitionIDs.IsNull() || m.PartitionIDs.IsUnknown() {
		return
	}
	var ids []string
	if diags := m.PartitionIDs.ElementsAs(ctx, &ids, false); diags.HasError() || len(ids) == 0 {
		return
	}
	e, err := r.clients.Engine()
	if err != nil {
		return
	}
	cluster, err := r.clients.Config().ClusterName()
	if err != nil {
		return
	}
	found, err := e.PartitionsMaintenance(ctx, cluster, m.Topology.ValueString(), ids)
	if err != nil {
		tflog.Debug(ctx, "Could not read the maintenance of the slice's sub-blocks", map[string]any{"error": err.Error()})
		return
	}
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
