package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The provider functions' arguments as a configuration gives them: every
// function, run with any topology, device access and counts, returns a
// known result or a function error, and never panics.
func FuzzFunctionArguments(f *testing.F) {
	for _, seed := range []struct {
		topo, access string
		a, b         int64
	}{{"4x4x4", "device_plugin", 16, 4}, {"4x8x8", "dra", 64, 4}, {"2x2x1", "device_plugin", 4, 1}, {"", "", 0, 0},
		{"8x8x256", "x", -1, 3}, {"16x24x24", "dra", 1 << 62, -(1 << 62)}, {"2x2x4", "device_plugin", 8, 2}} {
		f.Add(seed.topo, seed.access, seed.a, seed.b)
	}
	ctx := context.Background()
	p := &GKEProvider{}
	f.Fuzz(func(t *testing.T, topo, access string, a, b int64) {
		for _, newFunction := range p.Functions(ctx) {
			fn := newFunction()
			var meta function.MetadataResponse
			fn.Metadata(ctx, function.MetadataRequest{}, &meta)
			var def function.DefinitionResponse
			fn.Definition(ctx, function.DefinitionRequest{}, &def)
			strs, ints := []string{topo, access}, []int64{a, b}
			var args []attr.Value
			for _, param := range def.Definition.Parameters {
				switch param.(type) {
				case function.StringParameter:
					args = append(args, types.StringValue(strs[0]))
					strs = strs[1:]
				case function.Int64Parameter:
					args = append(args, types.Int64Value(ints[0]))
					ints = ints[1:]
				default:
					t.Fatalf("%s: a parameter of type %T this fuzz test does not fill", meta.Name, param)
				}
			}
			returnType := def.Definition.Return.GetType()
			null, err := returnType.ValueFromTerraform(ctx, tftypes.NewValue(returnType.TerraformType(ctx), nil))
			if err != nil {
				t.Fatal(err)
			}
			resp := function.RunResponse{Result: function.NewResultData(null)}
			fn.Run(ctx, function.RunRequest{Arguments: function.NewArgumentsData(args)}, &resp)
			if resp.Error != nil {
				if resp.Error.Error() == "" {
					t.Fatalf("%s(%v) fails with no words", meta.Name, args)
				}
				continue
			}
			if v := resp.Result.Value(); v.IsNull() || v.IsUnknown() {
				t.Fatalf("%s(%v) returned no value and no error", meta.Name, args)
			}
		}
	})
}
