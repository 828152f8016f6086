// Package provider is the Terraform glue of the gke provider: it turns
// configuration and plans into calls of the engine's packages, and their results
// into state and diagnostics.
//
// Configure (provider.go) resolves the configuration (config.go), builds the
// clients, then the engine over them, once (configured.go), and hands the one
// configuration to every resource, data source, action and list resource. A
// handler calls the engine's packages directly (e.NodePools(), e.Slices(), ...):
// it never reads an error's text and never grows a loop or a wait of its own;
// if it needs one, the engine is missing a function. Every engine error becomes
// a diagnostic through one table (diagnostics.go), the same at plan and at
// apply. A resource of more than one concern is split into resource_<name>.go
// (its type and schema), _plan.go (validation and plan checks), _model.go (the
// model's helpers) and _crud.go (create, read, update, delete, import); actions
// are action_*.go, data sources data_source_*.go, list resources list_*.go,
// functions function_*.go and validators validator_*.go. One duration check
// (validator_duration.go) serves every timeout.
package provider

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/action"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/list"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
)

// TypeName is the provider's type name in Terraform (provider "gke").
const TypeName = "gke"

var (
	_ provider.Provider              = (*GKEProvider)(nil)
	_ provider.ProviderWithFunctions = (*GKEProvider)(nil)
)

// New returns a constructor of the provider with the production budgets
// and cadences, as providerserver expects.
func New(version string) func() provider.Provider {
	return NewWithOptions(version, Options{})
}

// GKEProvider is the gke provider.
type GKEProvider struct {
	version string
	// getenv reads environment fallbacks; tests replace it.
	getenv func(string) string
	// opts are the budgets and cadences its clients and engine wait on.
	opts Options

	// mu guards current, the configuration of the latest Configure.
	mu      sync.Mutex
	current *configured
}

// use keeps c as the provider's configuration and closes the engine of an
// earlier Configure. A provider process is configured once per terraform
// command: a normal one serves one command, but one started with -debug
// (or by the in-process test harness) serves many, and the engine of each
// would otherwise watch the cluster for the rest of the process. Handlers
// never read it: Configure hands c to them.
func (p *GKEProvider) use(c *configured) {
	p.mu.Lock()
	prev := p.current
	p.current = c
	p.mu.Unlock()
	if prev != c {
		prev.close()
	}
}

// hand gives c to every resource, data source, action and list resource.
func hand(c *configured, resp *provider.ConfigureResponse) {
	resp.ResourceData, resp.DataSourceData, resp.ActionData, resp.ListResourceData = c, c, c, c
}

// providerModel is the provider block.
type providerModel struct {
	Project                   types.String     `tfsdk:"project"`
	Location                  types.String     `tfsdk:"location"`
	Cluster                   types.String     `tfsdk:"cluster"`
	Credentials               types.String     `tfsdk:"credentials"`
	AccessToken               types.String     `tfsdk:"access_token"`
	ImpersonateServiceAccount types.String     `tfsdk:"impersonate_service_account"`
	ComputeEndpoint           types.String     `tfsdk:"compute_endpoint"`
	ContainerEndpoint         types.String     `tfsdk:"container_endpoint"`
	RequestTimeout            types.String     `tfsdk:"request_timeout"`
	Kubernetes                *kubernetesModel `tfsdk:"kubernetes"`
}

// kubernetesModel is the optional kubernetes block.
type kubernetesModel struct {
	Host                 types.String `tfsdk:"host"`
	Token                types.String `tfsdk:"token"`
	ClusterCACertificate types.String `tfsdk:"cluster_ca_certificate"`
	ConfigPath           types.String `tfsdk:"config_path"`
	ConfigContext        types.String `tfsdk:"config_context"`
}

// Metadata implements provider.Provider.
func (p *GKEProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = TypeName
	resp.Version = p.version
}

// Schema implements provider.Provider.
func (p *GKEProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		MarkdownDescription: "The gke provider makes GKE dynamic TPU slicing for Ironwood (TPU7x) declarative: workload policies, " +
			"one node pool per reservation sub-block, and Slice custom resources driven to ACTIVE. Every attribute is optional; " +
			"nothing is read from Google or Kubernetes until a resource or data source needs it, so the provider functions work with an empty provider block.",
		Attributes: map[string]schema.Attribute{
			"project": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Default Google Cloud project ID for every resource. " + envDoc(envProject),
			},
			"location": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Default location of the GKE cluster: a region (`us-central1`) or a zone (`us-central1-a`). " +
					"Regional resources such as workload policies use the region of a zone. " + envDoc(envLocation),
				Validators: []validator.String{LocationValidator(location.RegionOrZone)},
			},
			"cluster": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Default GKE cluster name. With `project` and `location` it is also where Kubernetes access is derived from when there is no `kubernetes` block. " + envDoc(envCluster),
			},
			"credentials": schema.StringAttribute{
				Optional:  true,
				Sensitive: true,
				MarkdownDescription: "Google credentials: the path of a JSON file or its content (service account key, authorized user, or external account). " +
					"When neither this nor `access_token` is set, Application Default Credentials are used. Conflicts with `access_token`. Never logged. " + envDoc(envCredentials),
				Validators: []validator.String{stringvalidator.ConflictsWith(path.MatchRoot("access_token"))},
			},
			"access_token": schema.StringAttribute{
				Optional:            true,
				Sensitive:           true,
				MarkdownDescription: "A Google OAuth 2.0 access token, used as is (it is not refreshed). Conflicts with `credentials`. Never logged. " + envDoc(envAccessToken),
			},
			"impersonate_service_account": schema.StringAttribute{
				Optional:            true,
				MarkdownDescription: "Email of a service account to impersonate with the credentials above (they need `roles/iam.serviceAccountTokenCreator` on it). " + envDoc(envImpersonate),
			},
			"compute_endpoint": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Base URL of the Compute Engine API, for a private endpoint or the local sandbox. Default `https://compute.googleapis.com/`; " +
					"a trailing `/compute/v1/` is accepted and removed. " + envDoc(envComputeEndpoint),
			},
			"container_endpoint": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "Base URL of the GKE API, for a private endpoint or the local sandbox. Default `https://container.googleapis.com/`; " +
					"a trailing `/v1/` is accepted and removed. " + envDoc(envContainerEndpoint),
			},
			"request_timeout": schema.StringAttribute{
				Optional: true,
				MarkdownDescription: "How long one request waits for an answer: from the connection, through the TLS handshake, " +
					"to the response headers, for each attempt of a Google API request and for each request to the cluster's Kubernetes API " +
					"(a watch's events, which come after its headers, are not bounded). A duration such as `\"30s\"` or `\"2m\"`; default `\"30s\"`. " +
					"A Google API request with no answer is retried within the retry budget (2 minutes) and then fails with `no answer from <endpoint>`; " +
					"a Kubernetes list with no answer fails at once. See \"Retries, timeouts and interrupts\". " + envDoc(envRequestTimeout),
				Validators: []validator.String{durationValidator{}},
			},
		},
		Blocks: map[string]schema.Block{
			"kubernetes": schema.SingleNestedBlock{
				MarkdownDescription: "How to reach the cluster's Kubernetes API server. Without this block the provider reads the endpoint and CA certificate " +
					"of `cluster` from the GKE API and authenticates with the Google access token, as `gcloud container clusters get-credentials` does. " +
					"With it, give either `host` (with `cluster_ca_certificate`, and `token` or else the Google access token) or `config_path`. " +
					"The `KUBE_*` environment variables below are read only when this block is present, so an ambient kubeconfig never redirects the provider. " +
					"TLS is always verified.",
				Attributes: map[string]schema.Attribute{
					"host": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "URL of the API server, for example `https://10.0.0.2`. Conflicts with `config_path`. " + envDoc(envKubeHost),
						Validators:          []validator.String{stringvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("config_path"))},
					},
					"token": schema.StringAttribute{
						Optional:            true,
						Sensitive:           true,
						MarkdownDescription: "Bearer token for the API server. Without it the Google access token is sent, which GKE accepts. Never logged. " + envDoc(envKubeToken),
						Validators:          []validator.String{stringvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("config_path"))},
					},
					"cluster_ca_certificate": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "PEM-encoded CA certificate of the API server. Without it the system trust store is used. " + envDoc(envKubeCA),
						Validators:          []validator.String{stringvalidator.ConflictsWith(path.MatchRelative().AtParent().AtName("config_path"))},
					},
					"config_path": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "Path of a kubeconfig file. " + envDoc(envKubeConfigPath),
					},
					"config_context": schema.StringAttribute{
						Optional:            true,
						MarkdownDescription: "Context of the kubeconfig to use; default its current context. " + envDoc(envKubeContext),
					},
				},
			},
		},
	}
}

// Configure implements provider.Provider: it resolves the configuration,
// builds its clients, then the engine over them, once, and hands them to
// every resource, data source, action and list resource.
func (p *GKEProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var model providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &model)...)
	if resp.Diagnostics.HasError() {
		return
	}

	if unknown := model.unknownAttributes(); len(unknown) > 0 {
		// Values that come from resources not yet created: plan without
		// them, and let anything that needs an API say so.
		tflog.Info(ctx, "Provider configuration is not fully known yet; API access is deferred", map[string]any{"unknown": strings.Join(unknown, ",")})
		c := configure(clients.NewDeferred(unknown), p.opts.Engine)
		p.use(c)
		hand(c, resp)
		return
	}

	cfg, diags := resolveConfig(model, p.getenv)
	resp.Diagnostics.Append(diags...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg.UserAgent = p.userAgent(req.TerraformVersion)

	set, err := clients.New(ctx, cfg, p.opts.Clients)
	if err != nil {
		resp.Diagnostics.AddError("Cannot Configure the gke Provider", err.Error())
		return
	}
	c := configure(set, p.opts.Engine)
	p.use(c)
	hand(c, resp)
	// Only names and sources are logged; credentials and tokens never are.
	tflog.Info(ctx, "Configured the gke provider", map[string]any{
		"project":            cfg.Project,
		"location":           cfg.Location,
		"cluster":            cfg.Cluster,
		"credentials_source": cfg.CredentialsSource(),
		"kubernetes_source":  cfg.KubernetesSource(),
		"compute_endpoint":   cfg.ComputeEndpoint,
		"container_endpoint": cfg.ContainerEndpoint,
		"request_timeout":    cfg.RequestTimeout.String(),
		"impersonate":        cfg.ImpersonateServiceAccount,
	})
}

func (p *GKEProvider) userAgent(terraformVersion string) string {
	version := p.version
	if version == "" {
		version = "dev"
	}
	ua := fmt.Sprintf("terraform-provider-gke/%s (+https://registry.terraform.io/providers/dynslice/gke)", version)
	if terraformVersion != "" {
		ua = fmt.Sprintf("Terraform/%s %s", terraformVersion, ua)
	}
	return ua
}

// Resources implements provider.Provider.
func (p *GKEProvider) Resources(_ context.Context) []func() resource.Resource {
	return []func() resource.Resource{
		NewWorkloadPolicyResource,
		NewSubBlockNodePoolResource,
		NewTPUSliceResource,
		NewKueueSlicingResource,
	}
}

// DataSources implements provider.Provider.
func (p *GKEProvider) DataSources(_ context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewReservationSubBlocksDataSource,
		NewReservationSlotsDataSource,
		NewPartitionsDataSource,
	}
}

// Actions implements provider.ProviderWithActions: the day-2 actions
// (Terraform 1.14 and later). They read the provider's clients from it.
func (p *GKEProvider) Actions(_ context.Context) []func() action.Action {
	return []func() action.Action{
		func() action.Action { return &reportFaultyAction{} },
		func() action.Action { return &performMaintenanceAction{} },
	}
}

// Functions implements provider.ProviderWithFunctions.
func (p *GKEProvider) Functions(_ context.Context) []func() function.Function {
	return []func() function.Function{
		NewAcceleratorTypeFunction,
		NewKueueWorkloadFunction,
		NewSliceWorkloadFunction,
		NewTopologyChipsFunction,
		NewTopologyHostsFunction,
		NewTopologyPartitionsFunction,
		NewValidateTopologyFunction,
	}
}

// ListResources implements provider.ProviderWithListResources (see
// list_common.go).
func (p *GKEProvider) ListResources(_ context.Context) []func() list.ListResource {
	return p.listResources()
}
