package provider

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-log/tflogtest"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
)

func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestResolveConfig_EnvironmentFallbacks(t *testing.T) {
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	cases := []struct {
		name  string
		attrs map[string]tftypes.Value
		env   map[string]string
		check func(clients.Config) string
		want  string
	}{
		{"attributes win over environment", map[string]tftypes.Value{"project": str("attr-p"), "location": str("us-east5"), "cluster": str("c-attr")},
			map[string]string{"GOOGLE_PROJECT": "env-p", "GOOGLE_REGION": "us-central1", "CLOUDSDK_CONTAINER_CLUSTER": "c-env"},
			func(c clients.Config) string { return c.Project + " " + c.Location + " " + c.Cluster }, "attr-p us-east5 c-attr"},
		{"first variable wins", nil,
			map[string]string{"GOOGLE_CLOUD_PROJECT": "second", "CLOUDSDK_CORE_PROJECT": "fourth", "GOOGLE_ZONE": "us-central1-a", "GCLOUD_REGION": "us-central1"},
			func(c clients.Config) string { return c.Project + " " + c.Location }, "second us-central1"},
		{"access token from environment beats credentials from environment", nil,
			map[string]string{"GOOGLE_OAUTH_ACCESS_TOKEN": "tok", "GOOGLE_CREDENTIALS": `{"type":"authorized_user"}`},
			func(c clients.Config) string { return c.CredentialsSource() + " " + c.AccessToken }, "access_token tok"},
		{"credentials attribute beats token from environment", map[string]tftypes.Value{"credentials": str(`{"type":"service_account"}`)},
			map[string]string{"GOOGLE_OAUTH_ACCESS_TOKEN": "tok"},
			func(c clients.Config) string { return c.CredentialsSource() + " " + c.AccessToken }, "credentials "},
		{"endpoints normalized", nil,
			map[string]string{"GOOGLE_COMPUTE_CUSTOM_ENDPOINT": "http://127.0.0.1:1/compute/v1/", "GOOGLE_CONTAINER_CUSTOM_ENDPOINT": "http://127.0.0.1:2"},
			func(c clients.Config) string { return c.ComputeEndpoint + " " + c.ContainerEndpoint }, "http://127.0.0.1:1/ http://127.0.0.1:2/"},
		{"KUBE_ variables ignored without a kubernetes block", nil,
			map[string]string{"KUBE_HOST": "https://elsewhere", "KUBE_CONFIG_PATH": "/x"},
			func(c clients.Config) string { return c.KubernetesSource() }, "gke_cluster"},
		{"KUBE_ variables fill a kubernetes block", map[string]tftypes.Value{"kubernetes": kubernetesBlock(nil)},
			map[string]string{"KUBE_HOST": "https://10.0.0.2", "KUBE_TOKEN": "kt"},
			func(c clients.Config) string {
				return c.KubernetesSource() + " " + c.Kubernetes.Host + " " + c.Kubernetes.Token
			}, "host https://10.0.0.2 kt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &GKEProvider{getenv: env(tc.env)}
			model := providerModelFrom(t, p, tc.attrs)
			cfg, diags := resolveConfig(model, p.getenv)
			if diags.HasError() {
				t.Fatalf("diagnostics: %v", diags)
			}
			if got := tc.check(cfg); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestResolveConfig_CredentialsFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(file, []byte(`{"type":"service_account","private_key":"k"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p := &GKEProvider{getenv: env(map[string]string{"GOOGLE_CREDENTIALS": file})}
	cfg, diags := resolveConfig(providerModelFrom(t, p, nil), p.getenv)
	if diags.HasError() || !strings.Contains(string(cfg.Credentials), `"private_key":"k"`) {
		t.Fatalf("credentials from a file path in GOOGLE_CREDENTIALS: %q %v", cfg.Credentials, diags)
	}
}

// Configure builds the clients without calling any API and logs where
// settings come from, never the secrets themselves.
func TestConfigure_NeverLogsSecrets(t *testing.T) {
	const token, kubeToken = "ya29.secret-google-token", "kube-secret-token"
	var logs bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &logs)
	p := &GKEProvider{version: "1.2.3", getenv: env(nil)}
	block := kubernetesBlock(map[string]string{"host": "https://10.0.0.2", "token": kubeToken})
	resp := configureProvider(ctx, t, p, map[string]tftypes.Value{
		"project":      tftypes.NewValue(tftypes.String, "p1"),
		"access_token": tftypes.NewValue(tftypes.String, token),
		"kubernetes":   block,
	})
	if resp.Diagnostics.HasError() {
		t.Fatalf("Configure: %v", resp.Diagnostics)
	}
	c, ok := resp.ResourceData.(*configured)
	if !ok || resp.DataSourceData != resp.ResourceData || resp.ActionData != resp.ResourceData || resp.ListResourceData != resp.ResourceData {
		t.Fatalf("Configure handed %T / %T / %T / %T, want one *configured to resources, data sources, actions and list resources",
			resp.ResourceData, resp.DataSourceData, resp.ActionData, resp.ListResourceData)
	}
	t.Cleanup(c.close)
	if e, err := c.Engine(); e == nil || err != nil {
		t.Errorf("Engine() = %v, %v; want the engine Configure built", e, err)
	}
	if got := c.Config().UserAgent; !strings.Contains(got, "terraform-provider-gke/1.2.3") || !strings.HasPrefix(got, "Terraform/1.11.4 ") {
		t.Errorf("user agent %q", got)
	}
	out := logs.String()
	if !strings.Contains(out, "Configured the gke provider") || !strings.Contains(out, `"credentials_source":"access_token"`) {
		t.Fatalf("expected a configuration log line naming the sources, got %s", out)
	}
	for _, secret := range []string{token, kubeToken} {
		if strings.Contains(out, secret) {
			t.Errorf("logs contain a secret: %s", out)
		}
	}
}

func TestConfigure_UnknownValuesDeferAPIs(t *testing.T) {
	p := &GKEProvider{getenv: env(nil)}
	resp := configureProvider(context.Background(), t, p, map[string]tftypes.Value{
		"project":    tftypes.NewValue(tftypes.String, tftypes.UnknownValue),
		"kubernetes": kubernetesBlock(map[string]string{"host": unknownMarker}),
	})
	if resp.Diagnostics.HasError() {
		t.Fatalf("Configure with unknown values must not fail: %v", resp.Diagnostics)
	}
	c, ok := resp.ResourceData.(*configured)
	if !ok {
		t.Fatalf("Configure handed %T, want *configured", resp.ResourceData)
	}
	e, err := c.Engine()
	if e != nil || !errors.Is(err, clients.ErrUnknownConfig) || !strings.Contains(err.Error(), "project, kubernetes.host") {
		t.Fatalf("Engine() = %v, %v; want no engine, and the unknown attributes named", e, err)
	}
}

const unknownMarker = "<unknown>"

func kubernetesBlock(values map[string]string) tftypes.Value {
	types := map[string]tftypes.Type{}
	vals := map[string]tftypes.Value{}
	for _, name := range []string{"host", "token", "cluster_ca_certificate", "config_path", "config_context"} {
		types[name] = tftypes.String
		switch v, ok := values[name]; {
		case !ok:
			vals[name] = tftypes.NewValue(tftypes.String, nil)
		case v == unknownMarker:
			vals[name] = tftypes.NewValue(tftypes.String, tftypes.UnknownValue)
		default:
			vals[name] = tftypes.NewValue(tftypes.String, v)
		}
	}
	return tftypes.NewValue(tftypes.Object{AttributeTypes: types}, vals)
}

// providerConfig builds the provider block with the given attributes set
// and every other attribute null.
func providerConfig(t *testing.T, p *GKEProvider, attrs map[string]tftypes.Value) tfsdk.Config {
	t.Helper()
	ctx := context.Background()
	var sresp provider.SchemaResponse
	p.Schema(ctx, provider.SchemaRequest{}, &sresp)
	objType := sresp.Schema.Type().TerraformType(ctx).(tftypes.Object)
	vals := map[string]tftypes.Value{}
	for name, typ := range objType.AttributeTypes {
		if v, ok := attrs[name]; ok {
			vals[name] = v
		} else {
			vals[name] = tftypes.NewValue(typ, nil)
		}
	}
	return tfsdk.Config{Schema: sresp.Schema, Raw: tftypes.NewValue(objType, vals)}
}

func providerModelFrom(t *testing.T, p *GKEProvider, attrs map[string]tftypes.Value) providerModel {
	t.Helper()
	var m providerModel
	if diags := providerConfig(t, p, attrs).Get(context.Background(), &m); diags.HasError() {
		t.Fatal(diags)
	}
	return m
}

func configureProvider(ctx context.Context, t *testing.T, p *GKEProvider, attrs map[string]tftypes.Value) *provider.ConfigureResponse {
	t.Helper()
	resp := &provider.ConfigureResponse{}
	p.Configure(ctx, provider.ConfigureRequest{TerraformVersion: "1.11.4", Config: providerConfig(t, p, attrs)}, resp)
	return resp
}
