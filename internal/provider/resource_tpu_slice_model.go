package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
)

// derive fills the values that follow from the topology and name.
func (m *tpuSliceModel) derive() {
	if m.Topology.IsUnknown() || m.Name.IsUnknown() {
		return
	}
	shape, err := tpuslice.ShapeOf(m.Name.ValueString(), m.Topology.ValueString())
	if err != nil {
		return
	}
	m.Chips, m.Hosts, m.AcceleratorType = types.Int64Value(int64(shape.Chips)), types.Int64Value(int64(shape.Hosts)), types.StringValue(shape.AcceleratorType)
	m.NodeSelector = stringMap(shape.NodeSelector)
	m.PodAnnotations = stringMap(shape.PodAnnotations)
	if m.DeviceAccess.IsUnknown() {
		m.TPUResources = types.MapUnknown(types.StringType)
		m.ClaimTemplate = types.StringUnknown()
		m.PodResourceClaims = types.ListUnknown(types.MapType{ElemType: types.StringType})
		return
	}
	w := tpuslice.WiringOf(m.Name.ValueString(), m.access())
	m.TPUResources = stringMap(w.TPUResources)
	m.ClaimTemplate = types.StringNull()
	if w.ClaimTemplate != "" {
		m.ClaimTemplate = types.StringValue(w.ClaimTemplate)
	}
	claims := make([]attr.Value, len(w.PodResourceClaims))
	for i, c := range w.PodResourceClaims {
		claims[i] = stringMap(c)
	}
	m.PodResourceClaims = types.ListValueMust(types.MapType{ElemType: types.StringType}, claims)
}

// access is the slice's device access (the default when null).
func (m *tpuSliceModel) access() clusterread.DeviceAccess {
	return clusterread.DeviceAccess(m.DeviceAccess.ValueString())
}

func deviceAccessValues() []string {
	out := make([]string, len(clusterread.DeviceAccesses))
	for i, a := range clusterread.DeviceAccesses {
		out[i] = string(a)
	}
	return out
}

func stringMap(in map[string]string) types.Map {
	vals := map[string]attr.Value{}
	for k, v := range in {
		vals[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, vals)
}

// forming says whether the slice in the state is still forming: the
// apply waits for it.
func (m tpuSliceModel) forming() bool {
	return !m.State.IsUnknown() && tpuslice.Progress(m.State.ValueString(), m.RetryOnFailure.ValueBool()).Waiting
}

// selector is the partition selector, when every part of it is known.
func (m tpuSliceModel) selector() (*tpuslice.PartitionSelector, bool) {
	sel := m.PartitionSelector
	if sel == nil {
		return nil, true
	}
	if sel.NodePools.IsUnknown() || sel.WorkloadPolicy.IsUnknown() || sel.Block.IsUnknown() || sel.AllowDegraded.IsUnknown() {
		return nil, false
	}
	out := &tpuslice.PartitionSelector{Block: sel.Block.ValueString(), WorkloadPolicy: sel.WorkloadPolicy.ValueString(), AllowDegraded: sel.AllowDegraded.ValueBool()}
	if !sel.NodePools.IsNull() {
		// Set, even to an empty list: the engine refuses an empty one
		// rather than take it for every pool.
		out.NodePools = []string{}
	}
	for _, v := range sel.NodePools.Elements() {
		s, ok := v.(types.String)
		if !ok || s.IsUnknown() {
			return nil, false
		}
		out.NodePools = append(out.NodePools, s.ValueString())
	}
	return out, true
}

func idsList(ids []string) types.List {
	vals := make([]attr.Value, len(ids))
	for i, id := range ids {
		vals[i] = types.StringValue(id)
	}
	return types.ListValueMust(types.StringType, vals)
}

func orNotReported(state string) string {
	if state == "" {
		return "state not yet reported by the slice controller"
	}
	return state
}

func (m *tpuSliceModel) setStatus(s *clusterread.Slice) {
	m.State, m.Message, m.Ready = types.StringValue(s.State), types.StringValue(s.Message), types.BoolValue(s.Ready)
	conds := make([]attr.Value, 0, len(s.Conditions))
	for _, c := range s.Conditions {
		conds = append(conds, types.ObjectValueMust(conditionType.AttrTypes, map[string]attr.Value{
			"type": types.StringValue(c.Type), "status": types.StringValue(c.Status), "reason": types.StringValue(c.Reason), "message": types.StringValue(c.Message),
		}))
	}
	m.Conditions = types.ListValueMust(conditionType, conds)
}
