package floor

import (
	"context"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	pschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
)

// SchemaName and SchemaAddress are the schema floor's provider name and
// registry address.
const (
	SchemaName    = "schemafloor"
	SchemaAddress = "registry.terraform.io/dynslice/" + SchemaName
)

// NewSchemaFloor returns the schema floor: a provider whose resource
// types have the schemas of the given resources of provider from (the
// attributes, nested blocks, defaults, attribute plan modifiers and
// validators, schema versions), but no resource identity, named with the schema
// floor's prefix ("gke_tpu_slice" becomes "schemafloor_tpu_slice"),
// and whose handlers do no work. A plan of the stack's existing
// resources through it costs what Terraform and terraform-plugin-framework
// cost for those schemas and values, with none of the provider's own
// work: its reads, its resource-level plan checks and validation, its
// data sources and requests. It plans only: a create or an update fails.
func NewSchemaFloor(from string, resources []func() resource.Resource) func() provider.Provider {
	return func() provider.Provider { return &schemaFloor{from: from, resources: resources} }
}

type schemaFloor struct {
	from      string
	resources []func() resource.Resource
}

func (*schemaFloor) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = SchemaName
}

func (*schemaFloor) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = pschema.Schema{Description: "The schema floor of the benchmarks: the provider's schemas, with handlers that do nothing."}
}

func (*schemaFloor) Configure(context.Context, provider.ConfigureRequest, *provider.ConfigureResponse) {
}

func (p *schemaFloor) Resources(context.Context) []func() resource.Resource {
	out := make([]func() resource.Resource, 0, len(p.resources))
	for _, f := range p.resources {
		out = append(out, func() resource.Resource { return schemaNoop{from: p.from, of: f()} })
	}
	return out
}

func (*schemaFloor) DataSources(context.Context) []func() datasource.DataSource { return nil }

// schemaNoop has the schema of the resource it is made of and does
// nothing: a read keeps the state (the framework has copied it to the
// response), a plan is the framework's own. It has no identity: a read
// that does nothing could not give one back, and Terraform before 1.12
// keeps none.
type schemaNoop struct {
	from string
	of   resource.Resource
}

// SchemaTypeName is the schema floor's name for a resource type of
// provider from.
func SchemaTypeName(from, typeName string) string {
	return SchemaName + strings.TrimPrefix(typeName, from)
}

func (r schemaNoop) Metadata(ctx context.Context, _ resource.MetadataRequest, resp *resource.MetadataResponse) {
	var of resource.MetadataResponse
	r.of.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: r.from}, &of)
	resp.TypeName = SchemaTypeName(r.from, of.TypeName)
}

func (r schemaNoop) Schema(ctx context.Context, req resource.SchemaRequest, resp *resource.SchemaResponse) {
	r.of.Schema(ctx, req, resp)
}

func (schemaNoop) Create(_ context.Context, _ resource.CreateRequest, resp *resource.CreateResponse) {
	resp.Diagnostics.AddError("The schema floor only plans", "The benchmarks write the schema floor's state; it creates nothing.")
}

func (schemaNoop) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (schemaNoop) Update(_ context.Context, _ resource.UpdateRequest, resp *resource.UpdateResponse) {
	resp.Diagnostics.AddError("The schema floor only plans", "A plan of the schema floor has no changes: the benchmarks copy the stack's state and configuration.")
}

func (schemaNoop) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}
