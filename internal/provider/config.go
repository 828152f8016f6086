package provider

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine/location"
)

// Environment fallbacks, first match wins. The schema documentation is
// built from these lists, so docs and behaviour cannot disagree.
var (
	envProject           = []string{"GOOGLE_PROJECT", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT", "CLOUDSDK_CORE_PROJECT"}
	envLocation          = []string{"GOOGLE_LOCATION", "GOOGLE_REGION", "GCLOUD_REGION", "CLOUDSDK_COMPUTE_REGION", "GOOGLE_ZONE", "GCLOUD_ZONE", "CLOUDSDK_COMPUTE_ZONE"}
	envCluster           = []string{"GOOGLE_CLUSTER", "CLOUDSDK_CONTAINER_CLUSTER"}
	envCredentials       = []string{"GOOGLE_CREDENTIALS", "GOOGLE_CLOUD_KEYFILE_JSON", "GCLOUD_KEYFILE_JSON"}
	envAccessToken       = []string{"GOOGLE_OAUTH_ACCESS_TOKEN"}
	envImpersonate       = []string{"GOOGLE_IMPERSONATE_SERVICE_ACCOUNT"}
	envComputeEndpoint   = []string{"GOOGLE_COMPUTE_CUSTOM_ENDPOINT"}
	envContainerEndpoint = []string{"GOOGLE_CONTAINER_CUSTOM_ENDPOINT"}
	envKubeHost          = []string{"KUBE_HOST"}
	envKubeToken         = []string{"KUBE_TOKEN"}
	envKubeCA            = []string{"KUBE_CLUSTER_CA_CERT_DATA"}
	envKubeConfigPath    = []string{"KUBE_CONFIG_PATH"}
	envKubeContext       = []string{"KUBE_CTX"}
	envRequestTimeout    = []string{"GKE_REQUEST_TIMEOUT"}
)

func osGetenv(name string) string { return os.Getenv(name) }

func envDoc(names []string) string {
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = "`" + n + "`"
	}
	if len(names) == 1 {
		return "Environment fallback: " + quoted[0] + "."
	}
	return "Environment fallbacks, first set wins: " + strings.Join(quoted, ", ") + "."
}

// orEnv returns the configured value, else the first non-empty variable.
// envSource names the first of the variables that is set.
func envSource(names []string, getenv func(string) string) string {
	for _, n := range names {
		if strings.TrimSpace(getenv(n)) != "" {
			return n
		}
	}
	return ""
}

func orEnv(v types.String, names []string, getenv func(string) string) string {
	if s := v.ValueString(); s != "" {
		return s
	}
	for _, n := range names {
		if s := strings.TrimSpace(getenv(n)); s != "" {
			return s
		}
	}
	return ""
}

// unknownAttributes names every provider attribute whose value is not known
// at configure time.
func (m providerModel) unknownAttributes() []string {
	var unknown []string
	check := func(name string, v attr.Value) {
		if v.IsUnknown() {
			unknown = append(unknown, name)
		}
	}
	check("project", m.Project)
	check("location", m.Location)
	check("cluster", m.Cluster)
	check("credentials", m.Credentials)
	check("access_token", m.AccessToken)
	check("impersonate_service_account", m.ImpersonateServiceAccount)
	check("compute_endpoint", m.ComputeEndpoint)
	check("container_endpoint", m.ContainerEndpoint)
	check("request_timeout", m.RequestTimeout)
	if k := m.Kubernetes; k != nil {
		check("kubernetes.host", k.Host)
		check("kubernetes.token", k.Token)
		check("kubernetes.cluster_ca_certificate", k.ClusterCACertificate)
		check("kubernetes.config_path", k.ConfigPath)
		check("kubernetes.config_context", k.ConfigContext)
	}
	return unknown
}

// resolveConfig applies environment fallbacks and checks the form of every
// value. It reads the credentials file when a path is given but calls no API.
func resolveConfig(m providerModel, getenv func(string) string) (clients.Config, diag.Diagnostics) {
	var diags diag.Diagnostics
	cfg := clients.Config{
		Project:                   orEnv(m.Project, envProject, getenv),
		Location:                  orEnv(m.Location, envLocation, getenv),
		Cluster:                   orEnv(m.Cluster, envCluster, getenv),
		ImpersonateServiceAccount: orEnv(m.ImpersonateServiceAccount, envImpersonate, getenv),
	}

	if m.Location.IsNull() && cfg.Location != "" {
		// From the environment: the attribute's own validator did not see it.
		if err := location.Check(cfg.Location, location.RegionOrZone); err != nil {
			diags.AddAttributeError(path.Root("location"), "Invalid Location",
				fmt.Sprintf("location, from the environment (%s): %s", envSource(envLocation, getenv), err))
		}
	}

	cfg.AccessToken, cfg.Credentials = resolveCredentials(m, getenv, &diags)
	cfg.ComputeEndpoint = resolveEndpoint("compute_endpoint", m.ComputeEndpoint, envComputeEndpoint, "/compute/v1", getenv, &diags)
	cfg.ContainerEndpoint = resolveEndpoint("container_endpoint", m.ContainerEndpoint, envContainerEndpoint, "/v1", getenv, &diags)
	cfg.RequestTimeout = resolveRequestTimeout(m.RequestTimeout, getenv, &diags)
	if k := m.Kubernetes; k != nil {
		cfg.Kubernetes = resolveKubernetes(k, getenv, &diags)
	}
	return cfg, diags
}

// resolveCredentials returns the access token and the content of the
// credentials (JSON, or read from the file when a path is given). An
// attribute beats any variable; between variables, a token beats a
// credentials file, as in the google provider.
func resolveCredentials(m providerModel, getenv func(string) string, diags *diag.Diagnostics) (accessToken string, content []byte) {
	accessToken = m.AccessToken.ValueString()
	credentials := m.Credentials.ValueString()
	if accessToken == "" && credentials == "" {
		accessToken = orEnv(types.StringNull(), envAccessToken, getenv)
		if accessToken == "" {
			credentials = orEnv(types.StringNull(), envCredentials, getenv)
		}
	}
	if credentials != "" {
		var err error
		if content, err = clients.ReadCredentials(credentials); err != nil {
			diags.AddAttributeError(path.Root("credentials"), "Invalid Google Credentials", err.Error())
		}
	}
	return strings.TrimSpace(accessToken), content
}

// resolveEndpoint returns the normalized base URL of an API (attrName, or
// else the variables env), "" when neither is set; suffix is the API
// version's path, accepted at the end and removed.
func resolveEndpoint(attrName string, v types.String, env []string, suffix string, getenv func(string) string, diags *diag.Diagnostics) string {
	raw := orEnv(v, env, getenv)
	if raw == "" {
		return ""
	}
	normalized, err := clients.NormalizeEndpoint(raw, suffix)
	if err != nil {
		diags.AddAttributeError(path.Root(attrName), "Invalid API Endpoint", fmt.Sprintf("%s: %s", attrName, err))
	}
	return normalized
}

// resolveRequestTimeout returns request_timeout (or GKE_REQUEST_TIMEOUT), 0
// when neither is set.
func resolveRequestTimeout(v types.String, getenv func(string) string, diags *diag.Diagnostics) time.Duration {
	raw := orEnv(v, envRequestTimeout, getenv)
	if raw == "" {
		return 0
	}
	d, err := parseDuration(raw)
	if err != nil {
		diags.AddAttributeError(path.Root("request_timeout"), "Invalid Request Timeout",
			durationDetail("request_timeout (or GKE_REQUEST_TIMEOUT)", raw, err))
	}
	return d
}

// resolveKubernetes applies the kubernetes block's environment fallbacks
// and checks that it gives either host or config_path.
func resolveKubernetes(k *kubernetesModel, getenv func(string) string, diags *diag.Diagnostics) *clients.KubernetesConfig {
	kc := &clients.KubernetesConfig{
		Host:                 orEnv(k.Host, envKubeHost, getenv),
		Token:                orEnv(k.Token, envKubeToken, getenv),
		ClusterCACertificate: orEnv(k.ClusterCACertificate, envKubeCA, getenv),
		ConfigPath:           orEnv(k.ConfigPath, envKubeConfigPath, getenv),
		ConfigContext:        orEnv(k.ConfigContext, envKubeContext, getenv),
	}
	switch {
	case kc.ConfigPath != "" && kc.Host != "":
		diags.AddAttributeError(path.Root("kubernetes").AtName("config_path"), "Conflicting Kubernetes Settings",
			"kubernetes: give either host (with token and cluster_ca_certificate) or config_path, not both; "+
				"one of them may come from KUBE_HOST or KUBE_CONFIG_PATH")
	case kc.ConfigPath == "" && kc.Host == "":
		diags.AddAttributeError(path.Root("kubernetes"), "Incomplete Kubernetes Settings",
			"the kubernetes block needs host (or KUBE_HOST) or config_path (or KUBE_CONFIG_PATH); "+
				"remove the block to reach the cluster through the GKE API instead")
	}
	return kc
}
