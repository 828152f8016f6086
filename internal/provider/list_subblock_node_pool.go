package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
)

var _ list.ListResource = (*subBlockNodePoolList)(nil)

// subBlockNodePoolList lists the sub-block node pools of a cluster.
type subBlockNodePoolList struct{ provider *configured }

type subBlockNodePoolListModel struct {
	Project  types.String `tfsdk:"project"`
	Location types.String `tfsdk:"location"`
	Cluster  types.String `tfsdk:"cluster"`
}

func (l *subBlockNodePoolList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_subblock_node_pool"
}

func (l *subBlockNodePoolList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the node pools of a GKE cluster that target a reservation block or sub-block, whoever made them " +
			"(gcloud, xpk, another configuration), with their partition: `terraform query` shows them, and " +
			"`terraform query -generate-config-out` writes an import block and a `gke_subblock_node_pool` for each. The cluster's " +
			"other pools (a default pool, CPU pools) are left out.",
		Attributes: map[string]schema.Attribute{
			"project": schema.StringAttribute{Optional: true, MarkdownDescription: "Project of the cluster. Default: the provider's `project`."},
			"location": schema.StringAttribute{
				Optional: true, Validators: []validator.String{LocationValidator(location.RegionOrZone)},
				MarkdownDescription: "Location of the cluster. Default: the provider's `location`.",
			},
			"cluster": schema.StringAttribute{Optional: true, MarkdownDescription: "Cluster name. Default: the provider's `cluster`."},
		},
	}
}

func (l *subBlockNodePoolList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg subBlockNodePoolListModel
	if diags := req.Config.Get(ctx, &cfg); diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	e, pc, ok := listEngine(l.provider, stream)
	if !ok {
		return
	}
	project, location, cluster := or(cfg.Project.ValueString(), pc.Project), or(cfg.Location.ValueString(), pc.Location), or(cfg.Cluster.ValueString(), pc.Cluster)
	var missing []string
	for _, f := range []struct{ name, v string }{{"project", project}, {"location", location}, {"cluster", cluster}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		listError(stream, "Missing Cluster", fmt.Sprintf("%s not set: set them in the list block's config, or on the provider", strings.Join(missing, ", ")))
		return
	}
	pools, err := e.NodePools().List(ctx, project, location, cluster)
	if err != nil {
		listFailed(stream, err, subjectNodePoolList, "Cannot List Sub-Block Node Pools")
		return
	}
	if len(pools.Other) > 0 {
		tflog.Info(ctx, "Node pools that target no reservation block are not listed", map[string]any{"node_pools": strings.Join(pools.Other, ",")})
	}
	results := make([]list.ListResult, 0, len(pools.Pools))
	for _, p := range pools.Pools {
		results = append(results, listResult(ctx, req, p.ID, poolIdentity(p), poolModel(p, emptyPoolModel())))
	}
	stream.Results = pushAll(req.Limit, results)
}

// emptyPoolModel is a pool with nothing known: what poolModel fills from a
// pool found by a list. Its wait setting is the default.
func emptyPoolModel() subBlockNodePoolModel {
	return subBlockNodePoolModel{
		NodeLabels:     types.MapNull(types.StringType),
		ResourceLabels: types.MapNull(types.StringType),
		NodeNames:      types.ListNull(types.StringType),
		WaitFor:        types.StringValue(nodepool.WaitLabelled),
	}
}

// or is v, or def when v is empty.
func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// Configure implements list.ListResourceWithConfigure: it keeps the
// provider's configuration.
func (l *subBlockNodePoolList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	l.provider = c
}
