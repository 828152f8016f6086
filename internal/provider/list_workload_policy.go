package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
)

var _ list.ListResource = (*workloadPolicyList)(nil)

// workloadPolicyList lists the workload policies of a region.
type workloadPolicyList struct{ provider *configured }

type workloadPolicyListModel struct {
	Project types.String `tfsdk:"project"`
	Region  types.String `tfsdk:"region"`
}

func (l *workloadPolicyList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_workload_policy"
}

func (l *workloadPolicyList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the workload policies (Compute Engine resource policies with a workload policy) of a region, " +
			"whoever made them: `terraform query` shows them, and `terraform query -generate-config-out` writes an import block and " +
			"a `gke_workload_policy` for each. Resource policies of other kinds are left out.",
		Attributes: map[string]schema.Attribute{
			"project": schema.StringAttribute{Optional: true, MarkdownDescription: "Project to list. Default: the provider's `project`."},
			"region": schema.StringAttribute{
				Optional: true, Validators: []validator.String{LocationValidator(location.RegionOnly)},
				MarkdownDescription: "Region to list. Default: the region of the provider's `location`.",
			},
		},
	}
}

func (l *workloadPolicyList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg workloadPolicyListModel
	if diags := req.Config.Get(ctx, &cfg); diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	e, pc, ok := listEngine(l.provider, stream)
	if !ok {
		return
	}
	project, region := cfg.Project.ValueString(), cfg.Region.ValueString()
	if project == "" {
		project = pc.Project
	}
	if region == "" {
		region = location.RegionOf(pc.Location)
	}
	if project == "" || region == "" {
		listError(stream, "Missing Project or Region", "set project and region in the list block's config, or project and location on the provider")
		return
	}
	policies, err := e.Policies().List(ctx, project, region)
	if err != nil {
		listFailed(stream, err, subjectPolicyList, "Cannot List Workload Policies")
		return
	}
	results := make([]list.ListResult, 0, len(policies))
	for _, p := range policies {
		results = append(results, listResult(ctx, req, p.Path(), policyIdentity(p.Project, p.Region, p.Name), policyModel(p, nullPolicyTimeouts())))
	}
	stream.Results = pushAll(req.Limit, results)
}

// Configure implements list.ListResourceWithConfigure: it keeps the
// provider's configuration.
func (l *workloadPolicyList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	l.provider = c
}
