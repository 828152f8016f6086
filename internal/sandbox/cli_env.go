package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CLIEnv is the environment that points gcloud and kubectl at the sandbox,
// as `source cli.env` sets it: gcloud gets a configuration directory of its
// own in Dir (never the user's, so no real account or credentials are
// read or changed), the sandbox's project and region, the endpoint
// overrides of the emulated Compute and GKE APIs, and the sandbox token as
// its access token, with prompts, usage reporting, update checks and the
// GCE metadata probe off; kubectl gets the sandbox kubeconfig and a cache
// directory in Dir.
func (sb *Sandbox) CLIEnv() []string {
	i := sb.Info()
	return []string{
		"CLOUDSDK_CONFIG=" + filepath.Join(sb.Dir, "gcloud"),
		"CLOUDSDK_CORE_PROJECT=" + i.Project,
		// Not compute/zone: gcloud container would take it over the region
		// as the location of the (regional) cluster.
		"CLOUDSDK_COMPUTE_REGION=" + i.Region,
		"CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE=" + i.GoogleURL + "compute/v1/",
		"CLOUDSDK_API_ENDPOINT_OVERRIDES_CONTAINER=" + i.GoogleURL,
		"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE=" + sb.accessTokenFile(),
		"CLOUDSDK_CORE_DISABLE_PROMPTS=1",
		"CLOUDSDK_CORE_DISABLE_USAGE_REPORTING=true",
		"CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK=true",
		"CLOUDSDK_CORE_CHECK_GCE_METADATA=false",
		"CLOUDSDK_SURVEY_DISABLE_PROMPTS=true",
		"KUBECONFIG=" + i.Kubeconfig,
		"KUBECACHEDIR=" + filepath.Join(sb.Dir, "kube-cache"),
	}
}

// accessTokenFile holds the sandbox token for gcloud
// (auth/access_token_file).
func (sb *Sandbox) accessTokenFile() string { return filepath.Join(sb.Dir, "access-token") }

// writeCLIEnv writes cli.env (CLIEnv, for `source`) and the access token
// file it names, both mode 0600.
func (sb *Sandbox) writeCLIEnv() error {
	if err := os.WriteFile(sb.accessTokenFile(), []byte(sb.Token), 0o600); err != nil {
		return err
	}
	var env strings.Builder
	env.WriteString("# gcloud and kubectl against the GKE sandbox; written by the sandbox at start.\n")
	for _, e := range sb.CLIEnv() {
		k, v, _ := strings.Cut(e, "=")
		fmt.Fprintf(&env, "export %s=%q\n", k, v)
	}
	return os.WriteFile(filepath.Join(sb.Dir, "cli.env"), []byte(env.String()), 0o600)
}
