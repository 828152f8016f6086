package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// sliceRPCs are the plan-path requests Terraform sends for one existing
// gke_tpu_slice of the bench stack (a 4x8x8 slice whose selector lists
// the node pools: 144 in the bench's full pod), served in process with no cluster behind them: what
// the framework and the provider's own plan-path code cost per call,
// without the I/O and the waits for a core that the bench's RPC times
// include.
type sliceRPCs struct {
	srv                  tfprotov6.ProviderServer
	config, state, proto *tfprotov6.DynamicValue
}

func newSliceRPCs(tb testing.TB, nodePools int) *sliceRPCs {
	ctx := context.Background()
	srv, err := providerserver.NewProtocol6WithError(New("bench")())()
	if err != nil {
		tb.Fatal(err)
	}
	var sresp resource.SchemaResponse
	NewTPUSliceResource().Schema(ctx, resource.SchemaRequest{}, &sresp)
	s := sresp.Schema
	typ := s.Type().TerraformType(ctx)

	pools := make([]attr.Value, nodePools)
	for i := range pools {
		pools[i] = types.StringValue(fmt.Sprintf("pod-sb-%03d", i))
	}
	m := tpuSliceModel{
		ID: types.StringValue("active-00"), Name: types.StringValue("active-00"), Type: types.StringValue("tpu7x"),
		Topology:       types.StringValue("4x8x8"),
		PartitionIDs:   idsList([]string{"p-001", "p-002", "p-003", "p-004"}),
		RetryOnFailure: types.BoolValue(false), AllowDegraded: types.BoolValue(false), ForceRemoveFinalizer: types.BoolValue(false),
		PartitionSelector: &partitionSelectorModel{
			NodePools: types.ListValueMust(types.StringType, pools), Block: types.StringNull(), AllowDegraded: types.BoolValue(false),
		},
		State: types.StringValue("ACTIVE"), Message: types.StringValue(""), Ready: types.BoolValue(true),
		DeviceAccess: types.StringValue("device_plugin"),
		Conditions: types.ListValueMust(conditionType, []attr.Value{types.ObjectValueMust(conditionType.AttrTypes, map[string]attr.Value{
			"type": types.StringValue("Ready"), "status": types.StringValue("True"), "reason": types.StringValue("Active"), "message": types.StringValue(""),
		})}),
		Timeouts: timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{
			"create": types.StringType, "update": types.StringType, "delete": types.StringType,
		})},
	}
	m.derive()
	dyn := func(m tpuSliceModel) *tfprotov6.DynamicValue {
		st := tfsdk.State{Schema: s, Raw: tftypes.NewValue(typ, nil)}
		if diags := st.Set(ctx, m); diags.HasError() {
			tb.Fatalf("state: %v", diags)
		}
		v, err := tfprotov6.NewDynamicValue(typ, st.Raw)
		if err != nil {
			tb.Fatal(err)
		}
		return &v
	}
	state := dyn(m)
	c := m
	c.ID, c.Type, c.PartitionIDs = types.StringNull(), types.StringNull(), types.ListNull(types.StringType)
	c.RetryOnFailure, c.ForceRemoveFinalizer, c.DeviceAccess = types.BoolNull(), types.BoolNull(), types.StringNull()
	c.State, c.Message, c.Ready, c.Conditions = types.StringNull(), types.StringNull(), types.BoolNull(), types.ListNull(conditionType)
	c.Chips, c.Hosts, c.AcceleratorType = types.Int64Null(), types.Int64Null(), types.StringNull()
	c.NodeSelector, c.PodAnnotations, c.TPUResources = types.MapNull(types.StringType), types.MapNull(types.StringType), types.MapNull(types.StringType)
	c.ClaimTemplate, c.PodResourceClaims = types.StringNull(), types.ListNull(types.MapType{ElemType: types.StringType})
	return &sliceRPCs{srv: srv, config: dyn(c), state: state, proto: state}
}

func (s *sliceRPCs) validate(tb testing.TB) {
	resp, err := s.srv.ValidateResourceConfig(context.Background(), &tfprotov6.ValidateResourceConfigRequest{TypeName: "gke_tpu_slice", Config: s.config})
	check(tb, err, resp.Diagnostics)
}

func (s *sliceRPCs) plan(tb testing.TB) *tfprotov6.PlanResourceChangeResponse {
	resp, err := s.srv.PlanResourceChange(context.Background(), &tfprotov6.PlanResourceChangeRequest{
		TypeName: "gke_tpu_slice", Config: s.config, PriorState: s.state, ProposedNewState: s.proto,
	})
	check(tb, err, resp.Diagnostics)
	return resp
}

func check(tb testing.TB, err error, diags []*tfprotov6.Diagnostic) {
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range diags {
		tb.Fatalf("%s: %s", d.Summary, d.Detail)
	}
}

// The plan of an unchanged slice plans no change.
func TestSlicePlanOfUnchangedSlice(t *testing.T) {
	s := newSliceRPCs(t, 144)
	s.validate(t)
	resp := s.plan(t)
	if len(resp.RequiresReplace) != 0 {
		t.Errorf("replaces %v", resp.RequiresReplace)
	}
	var sresp resource.SchemaResponse
	NewTPUSliceResource().Schema(context.Background(), resource.SchemaRequest{}, &sresp)
	tt := sresp.Schema.Type().TerraformType(context.Background())
	planned, err := resp.PlannedState.Unmarshal(tt)
	if err != nil {
		t.Fatal(err)
	}
	prior, err := s.state.Unmarshal(tt)
	if err != nil {
		t.Fatal(err)
	}
	if !planned.Equal(prior) {
		diffs, _ := planned.Diff(prior)
		t.Errorf("the plan of an unchanged slice changes it: %v", diffs)
	}
}

// The framework's conversion of each request walks every value, so the
// cost of a call follows the length of the selector's node_pools list: the
// sub-benchmarks compare a selector of 1 pool with one of 144.
func BenchmarkSliceValidateResourceConfig(b *testing.B) {
	for _, n := range []int{1, 144} {
		b.Run(fmt.Sprintf("pools=%d", n), func(b *testing.B) {
			s := newSliceRPCs(b, n)
			b.ReportAllocs()
			for b.Loop() {
				s.validate(b)
			}
		})
	}
}

func BenchmarkSlicePlanResourceChange(b *testing.B) {
	for _, n := range []int{1, 144} {
		b.Run(fmt.Sprintf("pools=%d", n), func(b *testing.B) {
			s := newSliceRPCs(b, n)
			b.ReportAllocs()
			for b.Loop() {
				s.plan(b)
			}
		})
	}
}
