package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/provider"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine"
)

// List resources (Terraform 1.14+: list blocks in *.tfquery.hcl files,
// terraform query): each lists the objects of one resource type that
// exist, made by Terraform or not, as identities (and, with
// include_resource, whole resource objects, which
// terraform query -generate-config-out writes as configuration). The
// engine lists; these handlers map its results.

var _ provider.ProviderWithListResources = (*GKEProvider)(nil)

// listResources are the provider's list resources.
func (p *GKEProvider) listResources() []func() list.ListResource {
	return []func() list.ListResource{
		func() list.ListResource { return &workloadPolicyList{} },
		func() list.ListResource { return &subBlockNodePoolList{} },
		func() list.ListResource { return &tpuSliceList{} },
	}
}

// listEngine returns the engine and the provider's configuration, or a
// stream that says why there is none.
func listEngine(c *configured, stream *list.ListResultsStream) (*engine.Engine, clients.Config, bool) {
	e, diags := engineOf(c)
	if diags.HasError() {
		stream.Results = list.ListResultsStreamDiagnostics(diags)
		return nil, clients.Config{}, false
	}
	return e, c.Config(), true
}

// listFailed is a stream of the engine's error err, shown by the one
// error table (addError) for the list's subject s; fallback is the summary
// of an error the table does not know.
func listFailed(stream *list.ListResultsStream, err error, s subject, fallback string) {
	var diags diag.Diagnostics
	addError(&diags, err, s, fallback)
	stream.Results = list.ListResultsStreamDiagnostics(diags)
}

// listError is a stream of one error of the list's own (a missing
// setting), not the engine's.
func listError(stream *list.ListResultsStream, summary, detail string) {
	var diags diag.Diagnostics
	diags.AddError(summary, detail)
	stream.Results = list.ListResultsStreamDiagnostics(diags)
}

// pushAll streams results, at most limit of them (0: no limit), and stops
// when Terraform wants no more.
func pushAll(limit int64, results []list.ListResult) func(push func(list.ListResult) bool) {
	return func(push func(list.ListResult) bool) {
		for i, r := range results {
			if limit > 0 && int64(i) >= limit {
				return
			}
			if !push(r) {
				return
			}
		}
	}
}

// listResult is a result of req with its identity and, when asked for,
// its resource object set.
func listResult(ctx context.Context, req list.ListRequest, name string, identity, state any) list.ListResult {
	r := req.NewListResult(ctx)
	r.DisplayName = name
	r.Diagnostics.Append(r.Identity.Set(ctx, identity)...)
	if req.IncludeResource {
		r.Diagnostics.Append(r.Resource.Set(ctx, state)...)
	}
	return r
}
