package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/list/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
)

var _ list.ListResource = (*tpuSliceList)(nil)

// tpuSliceList lists the Slices of the provider's cluster.
type tpuSliceList struct{ provider *configured }

type tpuSliceListModel struct {
	IncludeKueueManaged types.Bool `tfsdk:"include_kueue_managed"`
}

func (l *tpuSliceList) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_tpu_slice"
}

func (l *tpuSliceList) ListResourceConfigSchema(_ context.Context, _ list.ListResourceSchemaRequest, resp *list.ListResourceSchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "Lists the Slices of the provider's cluster (they are cluster-scoped: there is no namespace), whoever made them " +
			"(kubectl, xpk, another configuration): `terraform query` shows them, and `terraform query -generate-config-out` writes an " +
			"import block and a `gke_tpu_slice` for each. Slices that Kueue's slice admission check made for a workload cannot be " +
			"imported (Kueue deletes them with the workload): they are left out, with a warning that names them, unless " +
			"`include_kueue_managed` is set. To list the Slices of another cluster, use a provider alias configured for it.",
		Attributes: map[string]schema.Attribute{
			"include_kueue_managed": schema.BoolAttribute{
				Optional: true,
				MarkdownDescription: "List the Slices Kueue made too, their display name marked `not importable` (their workload named). " +
					"Default `false`. Do not use it with `-generate-config-out`: an import of such a Slice is refused.",
			},
		},
	}
}

func (l *tpuSliceList) List(ctx context.Context, req list.ListRequest, stream *list.ListResultsStream) {
	var cfg tpuSliceListModel
	if diags := req.Config.Get(ctx, &cfg); diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return
	}
	e, _, ok := listEngine(l.provider, stream)
	if !ok {
		return
	}
	slices, err := e.Slices().List(ctx)
	if err != nil {
		listFailed(stream, err, subjectSliceList, "Cannot List Slices")
		return
	}
	set := l.provider
	var results []list.ListResult
	var kueueMade []string
	for _, s := range slices {
		name := s.Name
		if s.NotImportable != nil {
			if !cfg.IncludeKueueManaged.ValueBool() {
				kueueMade = append(kueueMade, fmt.Sprintf("%s (workload %s)", s.Name, s.KueueWorkload))
				continue
			}
			name = fmt.Sprintf("%s (made by Kueue for workload %s: not importable)", s.Name, s.KueueWorkload)
		}
		results = append(results, listResult(ctx, req, name, clusterObjectIdentity(ctx, set, nil, s.Name), listedSliceModel(s)))
	}
	if len(kueueMade) > 0 {
		var diags diag.Diagnostics
		diags.AddWarning("Slices Made by Kueue Not Listed", fmt.Sprintf(
			"%d Slice(s) were made by Kueue's slice admission check and cannot be imported (Kueue deletes each with its workload): %s. "+
				"Set include_kueue_managed = true in the list block's config to list them.", len(kueueMade), strings.Join(kueueMade, ", ")))
		results = append(results, list.ListResult{Diagnostics: diags})
	}
	stream.Results = pushAll(req.Limit, results)
}

// listedSliceModel is the state of a listed Slice, as an import followed
// by a read records it: the partitions listed (no selector), the provider
// settings at their defaults, and the device access the partitions'
// nodes offer.
func listedSliceModel(s tpuslice.ListedSlice) tpuSliceModel {
	m := tpuSliceModel{
		ID: types.StringValue(s.Name), Name: types.StringValue(s.Name), Type: types.StringValue(s.Type), Topology: types.StringValue(s.Topology),
		PartitionIDs:   idsList(s.PartitionIDs),
		RetryOnFailure: types.BoolValue(s.RetryOnFailure), AllowDegraded: types.BoolValue(false), ForceRemoveFinalizer: types.BoolValue(false),
		DeviceAccess:      types.StringValue(string(s.DeviceAccess)),
		NodeSelector:      types.MapNull(types.StringType),
		PodAnnotations:    types.MapNull(types.StringType),
		TPUResources:      types.MapNull(types.StringType),
		PodResourceClaims: types.ListNull(types.MapType{ElemType: types.StringType}),
		Timeouts:          timeouts.Value{Object: types.ObjectNull(map[string]attr.Type{"create": types.StringType, "update": types.StringType, "delete": types.StringType})},
	}
	m.setStatus(s.Slice)
	m.derive()
	return m
}

// Configure implements list.ListResourceWithConfigure: it keeps the
// provider's configuration.
func (l *tpuSliceList) Configure(_ context.Context, req resource.ConfigureRequest, resp *resource.ConfigureResponse) {
	c, diags := providerData(req.ProviderData)
	resp.Diagnostics.Append(diags...)
	l.provider = c
}
