// Package floor is the plan floor of the benchmarks: a minimal
// terraform-plugin-framework provider with one resource type,
// floor_noop, whose create, read, update and delete do no work. A plan of
// N floor_noop resources costs what Terraform and the plugin protocol
// cost for N resources and nothing more, so gke-bench plans as many of
// them beside each plan of the real stack and reports the ratio.
package floor

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/stringplanmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Name and Address are the floor provider's name and registry address.
const (
	Name    = "floor"
	Address = "registry.terraform.io/dynslice/" + Name
)

// New returns the floor provider.
func New() provider.Provider { return &floorProvider{} }

type floorProvider struct{}

func (*floorProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = Name
}

func (*floorProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = pschema.Schema{Description: "The plan floor of the benchmarks: resources that do nothing."}
}

func (*floorProvider) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (*floorProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{func() resource.Resource { return noop{} }}
}

func (*floorProvider) DataSources(context.Context) []func() datasource.DataSource { return nil }

// noop is floor_noop: a few attributes of the kinds the real resources
// have (a computed id kept across plans, required and optional strings, a
// number, a map), and handlers that only copy the plan to the state.
type noop struct{}

type noopModel struct {
	ID     types.String `tfsdk:"id"`
	Name   types.String `tfsdk:"name"`
	Zone   types.String `tfsdk:"zone"`
	Size   types.Int64  `tfsdk:"size"`
	Labels types.Map    `tfsdk:"labels"`
}

func (noop) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_noop"
}

func (noop) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Does nothing: create, read, update and delete make no request.",
		Attributes: map[string]schema.Attribute{
			"id": schema.StringAttribute{
				Computed:      true,
				Description:   "The name.",
				PlanModifiers: []planmodifier.String{stringplanmodifier.UseStateForUnknown()},
			},
			"name":   schema.StringAttribute{Required: true, Description: "A name."},
			"zone":   schema.StringAttribute{Optional: true, Description: "A zone."},
			"size":   schema.Int64Attribute{Optional: true, Description: "A number."},
			"labels": schema.MapAttribute{Optional: true, ElementType: types.StringType, Description: "Labels."},
		},
	}
}

func (noop) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m noopModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = m.Name
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

// Read keeps the state as it is (the framework has copied it to the
// response).
func (noop) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (noop) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m noopModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	m.ID = m.Name
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (noop) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
