package provider

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
)

// Resource identity (Terraform 1.12+, OpenTofu 1.12+): the attributes
// that name an object, which Terraform keeps beside the state, an import
// block can give instead of an ID, and a list resource (terraform query)
// returns for each object it finds.

// policyIdentityModel names a workload policy.
type policyIdentityModel struct {
	Project types.String `tfsdk:"project"`
	Region  types.String `tfsdk:"region"`
	Name    types.String `tfsdk:"name"`
}

// poolIdentityModel names a node pool.
type poolIdentityModel struct {
	Project  types.String `tfsdk:"project"`
	Location types.String `tfsdk:"location"`
	Cluster  types.String `tfsdk:"cluster"`
	Name     types.String `tfsdk:"name"`
}

// clusterObjectIdentityModel names an object of the provider's cluster (a
// Slice, the Kueue objects of gke_kueue_slicing): its name, and the GKE
// cluster when the provider is configured with one.
type clusterObjectIdentityModel struct {
	Name     types.String `tfsdk:"name"`
	Project  types.String `tfsdk:"project"`
	Location types.String `tfsdk:"location"`
	Cluster  types.String `tfsdk:"cluster"`
}

func policyIdentitySchema() identityschema.Schema {
	return identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"project": identityschema.StringAttribute{OptionalForImport: true, Description: "Project of the policy. Default: the provider's `project`."},
		"region":  identityschema.StringAttribute{OptionalForImport: true, Description: "Region of the policy. Default: the region of the provider's `location`."},
		"name":    identityschema.StringAttribute{RequiredForImport: true, Description: "Name of the policy."},
	}}
}

func poolIdentitySchema() identityschema.Schema {
	return identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"project":  identityschema.StringAttribute{OptionalForImport: true, Description: "Project of the cluster. Default: the provider's `project`."},
		"location": identityschema.StringAttribute{OptionalForImport: true, Description: "Location of the cluster. Default: the provider's `location`."},
		"cluster":  identityschema.StringAttribute{OptionalForImport: true, Description: "Cluster name. Default: the provider's `cluster`."},
		"name":     identityschema.StringAttribute{RequiredForImport: true, Description: "Node pool name."},
	}}
}

// clusterObjectIdentitySchema is the identity of a cluster object; what
// says what the name names.
func clusterObjectIdentitySchema(what string) identityschema.Schema {
	cluster := " The provider works on the cluster it is configured with: an identity that names another cluster is refused."
	return identityschema.Schema{Attributes: map[string]identityschema.Attribute{
		"name":     identityschema.StringAttribute{RequiredForImport: true, Description: what},
		"project":  identityschema.StringAttribute{OptionalForImport: true, Description: "Project of the GKE cluster, as the provider's `project`; null when the provider reaches the cluster through a `kubernetes` block only." + cluster},
		"location": identityschema.StringAttribute{OptionalForImport: true, Description: "Location of the GKE cluster, as the provider's `location`." + cluster},
		"cluster":  identityschema.StringAttribute{OptionalForImport: true, Description: "Name of the GKE cluster, as the provider's `cluster`." + cluster},
	}}
}

// policyIdentity is the identity of a policy.
func policyIdentity(project, region, name string) policyIdentityModel {
	return policyIdentityModel{Project: types.StringValue(project), Region: types.StringValue(region), Name: types.StringValue(name)}
}

// poolIdentity is the identity of the node pool of a GKE node pool ID.
func poolIdentity(p *nodepool.Pool) poolIdentityModel {
	return poolIdentityModel{
		Project: types.StringValue(p.Project), Location: types.StringValue(p.Location),
		Cluster: types.StringValue(p.Cluster), Name: types.StringValue(p.Name),
	}
}

// clusterObjectIdentity is the identity of the cluster object name: the
// cluster part of prior when it has one (an identity never changes), else
// the provider's.
func clusterObjectIdentity(ctx context.Context, set *configured, prior *tfsdk.ResourceIdentity, name string) clusterObjectIdentityModel {
	id := clusterObjectIdentityModel{Name: types.StringValue(name)}
	if prior != nil && !prior.Raw.IsNull() {
		var was clusterObjectIdentityModel
		if diags := prior.Get(ctx, &was); !diags.HasError() && !was.Name.IsNull() {
			id.Project, id.Location, id.Cluster = was.Project, was.Location, was.Cluster
			return id
		}
	}
	var cfg clients.Config
	if set != nil {
		cfg = set.Config()
	}
	id.Project, id.Location, id.Cluster = orNullString(cfg.Project), orNullString(cfg.Location), orNullString(cfg.Cluster)
	return id
}

// setIdentity sets the identity of a response, when Terraform keeps one
// (it is nil for a client that does not support identity).
func setIdentity(ctx context.Context, identity *tfsdk.ResourceIdentity, value any, diags *diag.Diagnostics) {
	if identity == nil {
		return
	}
	diags.Append(identity.Set(ctx, value)...)
}

// fromIdentity reads an import's identity into target, with a diagnostic
// when the import gave neither an ID nor an identity.
func fromIdentity(ctx context.Context, identity *tfsdk.ResourceIdentity, target any, diags *diag.Diagnostics) bool {
	if identity == nil || identity.Raw.IsNull() {
		diags.AddError("Nothing to Import", "the import gives neither an ID nor an identity")
		return false
	}
	diags.Append(identity.Get(ctx, target)...)
	return !diags.HasError()
}

// policyIDFromIdentity is the import ID of the policy an identity names,
// with the provider's project and region for the parts it leaves out.
func policyIDFromIdentity(id policyIdentityModel, cfg clients.Config) (string, error) {
	project, region := id.Project.ValueString(), id.Region.ValueString()
	if project == "" {
		project = cfg.Project
	}
	if region == "" {
		region = location.RegionOf(cfg.Location)
	}
	if project == "" || region == "" {
		return "", fmt.Errorf("the identity of workload policy %q has no project or region, and the provider has no project or location to take them from: set them in the identity", id.Name.ValueString())
	}
	return fmt.Sprintf("projects/%s/regions/%s/resourcePolicies/%s", project, region, id.Name.ValueString()), nil
}

// poolIDFromIdentity is the GKE node pool ID an identity names, with the
// provider's project, location and cluster for the parts it leaves out.
func poolIDFromIdentity(id poolIdentityModel, cfg clients.Config) (string, error) {
	project, location, cluster := id.Project.ValueString(), id.Location.ValueString(), id.Cluster.ValueString()
	if project == "" {
		project = cfg.Project
	}
	if location == "" {
		location = cfg.Location
	}
	if cluster == "" {
		cluster = cfg.Cluster
	}
	if project == "" || location == "" || cluster == "" {
		return "", fmt.Errorf("the identity of node pool %q lacks its project, location or cluster, and the provider has none to take them from: set them in the identity", id.Name.ValueString())
	}
	return nodepool.CanonicalID(fmt.Sprintf("projects/%s/locations/%s/clusters/%s/nodePools/%s", project, location, cluster, id.Name.ValueString()))
}

// checkClusterIdentity refuses the identity of a cluster object that
// names a cluster other than the provider's: the provider reaches one
// cluster, the one it is configured with.
func checkClusterIdentity(id clusterObjectIdentityModel, cfg clients.Config) error {
	for _, part := range []struct {
		attr, given, provider string
	}{{"project", id.Project.ValueString(), cfg.Project}, {"location", id.Location.ValueString(), cfg.Location}, {"cluster", id.Cluster.ValueString(), cfg.Cluster}} {
		if part.given == "" {
			continue
		}
		if part.provider == "" {
			return fmt.Errorf("the identity sets %s = %q, but the provider is not configured with a %s: remove it from the identity, or set the provider's %s", part.attr, part.given, part.attr, part.attr)
		}
		if part.given != part.provider {
			return fmt.Errorf("the identity sets %s = %q, but the provider works on %s %q: import it with a provider configured for that cluster (a provider alias), or fix the identity", part.attr, part.given, part.attr, part.provider)
		}
	}
	return nil
}

// configOf is the provider's configuration, empty before Configure.
func configOf(set *configured) clients.Config {
	if set == nil {
		return clients.Config{}
	}
	return set.Config()
}

// nameFromIdentity is the name of the cluster object an import's identity
// names. The identity must name the provider's cluster, if any; it is
// kept as the response's identity, with the provider's cluster filled in.
// It says whether the import goes on.
func nameFromIdentity(ctx context.Context, set *configured, req resource.ImportStateRequest, resp *resource.ImportStateResponse) (string, bool) {
	var id clusterObjectIdentityModel
	if !fromIdentity(ctx, req.Identity, &id, &resp.Diagnostics) {
		return "", false
	}
	if err := checkClusterIdentity(id, configOf(set)); err != nil {
		resp.Diagnostics.AddError("Invalid Import Identity", err.Error())
		return "", false
	}
	setIdentity(ctx, resp.Identity, clusterObjectIdentity(ctx, set, nil, id.Name.ValueString()), &resp.Diagnostics)
	return id.Name.ValueString(), !resp.Diagnostics.HasError()
}

// poolIdentityOfID is the identity of the node pool of a GKE node pool ID
// (projects/P/locations/L/clusters/C/nodePools/N); null parts when the ID
// is not one.
func poolIdentityOfID(id string) poolIdentityModel {
	var parts [4]types.String
	for i := range parts {
		parts[i] = types.StringNull()
	}
	if canonical, err := nodepool.CanonicalID(id); err == nil {
		f := strings.Split(canonical, "/") // projects P locations L clusters C nodePools N
		parts = [4]types.String{types.StringValue(f[1]), types.StringValue(f[3]), types.StringValue(f[5]), types.StringValue(f[7])}
	}
	return poolIdentityModel{Project: parts[0], Location: parts[1], Cluster: parts[2], Name: parts[3]}
}
