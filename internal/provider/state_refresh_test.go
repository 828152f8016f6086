package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

type refreshModel struct {
	Name  types.String `tfsdk:"name"`
	Names types.List   `tfsdk:"names"`
}

// A refresh that changes nothing leaves the state as it was sent; one
// that changes something sets it.
func TestSetRefreshed(t *testing.T) {
	t.Parallel()
	s := schema.Schema{Attributes: map[string]schema.Attribute{
		"name":  schema.StringAttribute{Computed: true},
		"names": schema.ListAttribute{Computed: true, ElementType: types.StringType},
	}}
	ctx := t.Context()
	objType := s.Type().TerraformType(ctx)
	sent := tftypes.NewValue(objType, map[string]tftypes.Value{
		"name":  tftypes.NewValue(tftypes.String, "a"),
		"names": tftypes.NewValue(tftypes.List{ElementType: tftypes.String}, []tftypes.Value{tftypes.NewValue(tftypes.String, "n-1")}),
	})
	state := tfsdk.State{Schema: s, Raw: sent}
	var prior refreshModel
	if d := state.Get(ctx, &prior); d.HasError() {
		t.Fatal(d)
	}

	// The same values, built afresh as a Read builds them.
	same := refreshModel{Name: types.StringValue("a"), Names: idsList([]string{"n-1"})}
	var diags diag.Diagnostics
	// A state whose Raw is not the prior's would show a Set: none is expected.
	probe := tfsdk.State{Schema: s, Raw: tftypes.NewValue(objType, nil)}
	setRefreshed(ctx, &probe, prior, same, &diags)
	if diags.HasError() || !probe.Raw.IsNull() {
		t.Errorf("an unchanged refresh set the state: %v, %v", probe.Raw, diags)
	}

	changed := same
	changed.Names = idsList([]string{"n-1", "n-2"})
	setRefreshed(ctx, &state, prior, changed, &diags)
	if diags.HasError() {
		t.Fatal(diags)
	}
	var got refreshModel
	if d := state.Get(ctx, &got); d.HasError() {
		t.Fatal(d)
	}
	if len(got.Names.Elements()) != 2 {
		t.Errorf("a changed refresh left the state at %v", got.Names)
	}
}
