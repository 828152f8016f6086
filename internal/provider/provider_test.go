package provider

import (
	"context"
	"regexp"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
)

// testProviderFactories serve the real provider in-process.
var testProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"gke": providerserver.NewProtocol6WithError(testProvider),
}

// testProvider and probeTestProvider are the providers the in-process
// factories serve, one each for all servers and tests.
var (
	testProvider      = New("test")().(*GKEProvider)
	probeTestProvider = New("test")().(*GKEProvider)
)

// testClients are client sets the tests made themselves (accEngine).
var testClients setList

type setList struct {
	mu   sync.Mutex
	sets []*clients.Set
}

func (l *setList) add(s *clients.Set) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sets = append(l.sets, s)
}

// closeTestClients closes the client sets of the tests and of the
// in-process providers: their engines stop watching the sandbox.
func closeTestClients() {
	testClients.mu.Lock()
	sets := testClients.sets
	testClients.sets = nil
	testClients.mu.Unlock()
	for _, s := range sets {
		s.Close()
	}
	testProvider.useClients(nil)
	probeTestProvider.useClients(nil)
}

// probeProviderFactories serve the real provider plus gke_validator_probe, a
// test-only resource that carries the plan-time validators the slice
// resource uses, so that they are exercised through real Terraform.
var probeProviderFactories = map[string]func() (tfprotov6.ProviderServer, error){
	"gke": providerserver.NewProtocol6WithError(&probeProvider{GKEProvider: probeTestProvider}),
}

type probeProvider struct{ *GKEProvider }

func (p *probeProvider) Resources(ctx context.Context) []func() resource.Resource {
	return append(p.GKEProvider.Resources(ctx), func() resource.Resource { return &validatorProbe{} })
}

type validatorProbe struct{}

type validatorProbeModel struct {
	Topology     types.String `tfsdk:"topology"`
	PartitionIDs types.List   `tfsdk:"partition_ids"`
}

func (r *validatorProbe) Metadata(_ context.Context, req resource.MetadataRequest, resp *resource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_validator_probe"
}

func (r *validatorProbe) Schema(_ context.Context, _ resource.SchemaRequest, resp *resource.SchemaResponse) {
	resp.Schema = schema.Schema{Attributes: map[string]schema.Attribute{
		"topology": schema.StringAttribute{Required: true, Validators: []validator.String{TopologyValidator()}},
		"partition_ids": schema.ListAttribute{
			ElementType: types.StringType,
			Optional:    true,
			Validators:  []validator.List{PartitionIDsValidator(path.MatchRoot("topology"))},
		},
	}}
}

func (r *validatorProbe) Create(ctx context.Context, req resource.CreateRequest, resp *resource.CreateResponse) {
	var m validatorProbeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *validatorProbe) Read(context.Context, resource.ReadRequest, *resource.ReadResponse) {}

func (r *validatorProbe) Update(ctx context.Context, req resource.UpdateRequest, resp *resource.UpdateResponse) {
	var m validatorProbeModel
	resp.Diagnostics.Append(req.Plan.Get(ctx, &m)...)
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}

func (r *validatorProbe) Delete(context.Context, resource.DeleteRequest, *resource.DeleteResponse) {}

// The provider serves and configures with an empty block: nothing is read
// from Google or Kubernetes until something needs it.
func TestProvider_EmptyConfiguration(t *testing.T) {
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []tfresource.TestStep{{
			Config: `
provider "gke" {}
output "hosts" { value = provider::gke::topology_hosts("8x8x8") }
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("hosts", knownvalue.Int64Exact(128)),
			},
		}},
	})
}

// A provider configured from a value that is known only after apply must
// plan and apply without crashing.
func TestProvider_UnknownConfiguration(t *testing.T) {
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: probeProviderFactories,
		Steps: []tfresource.TestStep{{
			Config: `
resource "terraform_data" "project" { input = "later-project" }
provider "gke" {
  project = terraform_data.project.output
  kubernetes { host = "https://${terraform_data.project.output}.invalid" }
}
resource "gke_validator_probe" "p" { topology = "4x4x8" }
`,
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("gke_validator_probe.p", tfjsonpath.New("topology"), knownvalue.StringExact("4x4x8")),
			},
		}},
	})
}

// Bad provider settings are reported at plan time with the attribute named.
func TestProvider_InvalidConfiguration(t *testing.T) {
	cases := map[string]struct {
		config string
		want   string
	}{
		"credentials and access_token": {
			`provider "gke" {
  credentials  = "{}"
  access_token = "token"
}`, `(?s)Attribute "access_token" cannot be specified when "credentials" is specified`,
		},
		"credentials neither JSON nor file": {
			`provider "gke" { credentials = "/does/not/exist.json" }`,
			`(?s)Invalid Google Credentials.*neither JSON .*nor the path of an\s+existing\s+file`,
		},
		"credentials without type": {
			`provider "gke" { credentials = "{\"private_key\": \"secret-key-material\"}" }`,
			`(?s)credentials JSON has no "type" field`,
		},
		"endpoint not a URL": {
			`provider "gke" { compute_endpoint = "localhost:8080" }`,
			`(?s)Invalid API Endpoint.*compute_endpoint: "localhost:8080" is not an absolute\s+http\(s\) URL`,
		},
		"kubernetes host and config_path": {
			`provider "gke" {
  kubernetes {
    host        = "https://10.0.0.2"
    config_path = "~/.kube/config"
  }
}`, `(?s)Attribute "kubernetes.config_path" cannot be specified when "kubernetes.host"\s+is specified`,
		},
		"kubernetes block empty": {
			`provider "gke" {
  kubernetes {}
}`, `(?s)Incomplete Kubernetes Settings`,
		},
		"kubernetes CA not PEM": {
			`provider "gke" {
  kubernetes {
    host                   = "https://10.0.0.2"
    cluster_ca_certificate = "not a certificate"
  }
}`, `(?s)kubernetes.cluster_ca_certificate: no PEM-encoded certificate found`,
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Setenv("KUBE_HOST", "")
			t.Setenv("KUBE_CONFIG_PATH", "")
			tfresource.UnitTest(t, tfresource.TestCase{
				ProtoV6ProviderFactories: probeProviderFactories,
				Steps: []tfresource.TestStep{{
					Config:      tc.config + "\nresource \"gke_validator_probe\" \"p\" { topology = \"4x4x4\" }\n",
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}
