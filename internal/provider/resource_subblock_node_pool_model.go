package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

func (m subBlockNodePoolModel) spec(ctx context.Context) (nodepool.Spec, diag.Diagnostics) {
	var diags diag.Diagnostics
	labels := map[string]string{}
	diags.Append(m.NodeLabels.ElementsAs(ctx, &labels, false)...)
	s := nodepool.Spec{
		Project: m.Project.ValueString(), Location: m.Location.ValueString(), Cluster: m.Cluster.ValueString(), Name: m.Name.ValueString(),
		Policy: m.WorkloadPolicy.ValueString(),
		Target: reservation.Target{
			Project: m.Project.ValueString(), Zone: m.Zone.ValueString(), Reservation: m.Reservation.ValueString(),
			Block: m.ReservationBlock.ValueString(), SubBlock: m.ReservationSubBlock.ValueString(),
		},
		MachineType: m.MachineType.ValueString(), NodeCount: m.NodeCount.ValueInt64(), Labels: labels,
		AutoRepair: m.AutoRepair.ValueBool(), AutoUpgrade: m.AutoUpgrade.ValueBool(), WaitFor: m.WaitFor.ValueString(),
	}
	if len(labels) == 0 {
		s.Labels = nil
	}
	s.ResourceLabels = labelsOf(ctx, m.ResourceLabels, &diags)
	for _, t := range m.Taints {
		s.Taints = append(s.Taints, nodepool.Taint{Key: t.Key.ValueString(), Value: t.Value.ValueString(), Effect: t.Effect.ValueString()})
	}
	var missing []string
	for name, v := range map[string]string{"project": s.Project, "location": s.Location, "cluster": s.Cluster, "zone": s.Target.Zone} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		diags.AddError("Missing Node Pool Settings", fmt.Sprintf("%s not set: set them on the resource, or project, location (a zone for zone) and cluster on the provider",
			strings.Join(missing, ", ")))
	}
	return s, diags
}

// provisioning says whether the pool's create has not finished: the next
// apply waits for it (an interrupted create).
func (m subBlockNodePoolModel) provisioning() bool {
	return nodepool.Progress(m.Status.ValueString()).Waiting
}

// poolModel is the state of a pool as read. Inputs the API reports in
// another spelling keep the prior value: a policy given as a self link,
// and the labels and taints as configured.
func poolModel(p *nodepool.Pool, prior subBlockNodePoolModel) subBlockNodePoolModel {
	m := prior
	m.ID = types.StringValue(p.ID)
	m.Name, m.Project, m.Location, m.Cluster = types.StringValue(p.Name), types.StringValue(p.Project), types.StringValue(p.Location), types.StringValue(p.Cluster)
	if p.Zone != "" {
		m.Zone = types.StringValue(p.Zone)
	}
	prevPolicy := prior.WorkloadPolicy.ValueString()
	if prevPolicy[strings.LastIndex(prevPolicy, "/")+1:] != p.Policy {
		m.WorkloadPolicy = types.StringValue(p.Policy)
	}
	m.Reservation, m.ReservationBlock = types.StringValue(p.Reservation), types.StringValue(p.Block)
	m.ReservationSubBlock = types.StringNull()
	if strings.Contains(p.ReservationPath, "/reservationSubBlocks/") {
		m.ReservationSubBlock = types.StringValue(p.SubBlock)
	}
	m.MachineType, m.NodeCount = types.StringValue(p.MachineType), types.Int64Value(p.NodeCount)
	m.AutoRepair, m.AutoUpgrade = types.BoolValue(p.AutoRepair), types.BoolValue(p.AutoUpgrade)
	if len(p.Labels) > 0 {
		labels := map[string]attr.Value{}
		for k, v := range p.Labels {
			labels[k] = types.StringValue(v)
		}
		m.NodeLabels = types.MapValueMust(types.StringType, labels)
	} else if !prior.NodeLabels.IsNull() && len(prior.NodeLabels.Elements()) > 0 || prior.NodeLabels.IsUnknown() {
		m.NodeLabels = types.MapNull(types.StringType)
	}
	m.ResourceLabels = readLabels(p.ResourceLabels, prior.ResourceLabels)
	m.Taints = nil
	for _, t := range p.Taints {
		value := types.StringNull()
		if t.Value != "" {
			value = types.StringValue(t.Value)
		}
		m.Taints = append(m.Taints, taintModel{Key: types.StringValue(t.Key), Value: value, Effect: types.StringValue(t.Effect)})
	}
	if m.WaitFor.IsNull() || m.WaitFor.IsUnknown() {
		m.WaitFor = types.StringValue(nodepool.WaitLabelled)
	}
	m.SubBlock = types.StringValue(p.SubBlock)
	m.ReservationPath = types.StringValue(p.ReservationPath)
	m.Status = types.StringValue(p.Status)
	m.PartitionID, m.PartitionState = orNullString(p.PartitionID), orNullString(p.PartitionState)
	names := make([]attr.Value, len(p.NodeNames))
	for i, n := range p.NodeNames {
		names[i] = types.StringValue(n)
	}
	m.NodeNames = types.ListValueMust(types.StringType, names)
	m.ReadyNodeCount = types.Int64Value(p.ReadyNodes)
	if m.Timeouts.IsNull() {
		m.Timeouts = timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType})}
	}
	return m
}

// labelsOf is a label map attribute's elements, nil when it has none.
func labelsOf(ctx context.Context, v types.Map, diags *diag.Diagnostics) map[string]string {
	out := map[string]string{}
	diags.Append(v.ElementsAs(ctx, &out, false)...)
	if len(out) == 0 {
		return nil
	}
	return out
}

// readLabels is a label map as read: the labels, or, when there are none,
// the prior value if it was an empty map (as configured) and null
// otherwise.
func readLabels(labels map[string]string, prior types.Map) types.Map {
	if len(labels) > 0 {
		elems := map[string]attr.Value{}
		for k, v := range labels {
			elems[k] = types.StringValue(v)
		}
		return types.MapValueMust(types.StringType, elems)
	}
	if !prior.IsNull() && !prior.IsUnknown() && len(prior.Elements()) == 0 {
		return prior
	}
	return types.MapNull(types.StringType)
}

func orNullString(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}
