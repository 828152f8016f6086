package provider

import (
	"regexp"
	"testing"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

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
