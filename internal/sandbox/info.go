package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

func (sb *Sandbox) writeKubeconfig() error {
	sb.Kubeconfig = filepath.Join(sb.Dir, "kubeconfig")
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["gke-sandbox"] = &clientcmdapi.Cluster{Server: sb.KubeHost, CertificateAuthorityData: sb.CAPEM}
	cfg.AuthInfos["sandbox-admin"] = &clientcmdapi.AuthInfo{Token: sb.Token}
	cfg.Contexts["gke-sandbox"] = &clientcmdapi.Context{Cluster: "gke-sandbox", AuthInfo: "sandbox-admin"}
	cfg.CurrentContext = "gke-sandbox"
	return clientcmd.WriteToFile(*cfg, sb.Kubeconfig)
}

// Info is what a client needs, as the sandbox command prints and writes it.
type Info struct {
	// Project, Region, Zone and Cluster are the emulated project's.
	Project string `json:"project"`
	Region  string `json:"region"`
	Zone    string `json:"zone"`
	Cluster string `json:"cluster"`
	// GoogleURL serves the emulated GKE and Compute APIs (plain HTTP on
	// loopback) and the control endpoint under /sandbox/.
	GoogleURL string `json:"google_url"`
	// KubeHost is the Kubernetes API (TLS with the sandbox CA, through the
	// sandbox proxy); the GKE API's clusters.get reports it too.
	KubeHost   string `json:"kube_host"`
	Kubeconfig string `json:"kubeconfig"`
	CAFile     string `json:"ca_file"`
	// Token is the bearer token for every API. Secret.
	Token string `json:"token"`
	// PIDs are the processes the sandbox runs.
	PIDs []int `json:"pids"`
	// KueueVersion is the Kueue release whose CRDs are installed.
	KueueVersion string `json:"kueue_version,omitempty"`
	// JobSetVersion is the JobSet release that runs.
	JobSetVersion string `json:"jobset_version,omitempty"`
}

// Info describes the running sandbox.
func (sb *Sandbox) Info() Info {
	return Info{
		Project: sb.Inventory.Project, Region: sb.Inventory.Region, Zone: sb.Inventory.Zone, Cluster: sb.Inventory.Cluster,
		GoogleURL: sb.GoogleURL, KubeHost: sb.KubeHost, Kubeconfig: sb.Kubeconfig,
		CAFile: filepath.Join(sb.Dir, "ca.crt"), Token: sb.Token, PIDs: sb.Processes(),
		KueueVersion: sb.KueueVersion, JobSetVersion: sb.JobSetVersion,
	}
}

// Env is the environment that points the provider (and gcloud-style
// tools) at the sandbox: the provider needs nothing else, since it reads
// the Kubernetes endpoint and CA from the emulated GKE API.
func (sb *Sandbox) Env() []string {
	i := sb.Info()
	return []string{
		"GOOGLE_PROJECT=" + i.Project,
		"GOOGLE_REGION=" + i.Region,
		"GOOGLE_CLUSTER=" + i.Cluster,
		"GOOGLE_OAUTH_ACCESS_TOKEN=" + i.Token,
		"GOOGLE_COMPUTE_CUSTOM_ENDPOINT=" + i.GoogleURL,
		"GOOGLE_CONTAINER_CUSTOM_ENDPOINT=" + i.GoogleURL,
	}
}

// ProviderConfig is a provider block for the sandbox.
func (sb *Sandbox) ProviderConfig() string {
	i := sb.Info()
	return fmt.Sprintf(`provider "gke" {
  project            = %q
  location           = %q
  cluster            = %q
  access_token       = %q
  compute_endpoint   = %q
  container_endpoint = %q
}
`, i.Project, i.Region, i.Cluster, i.Token, i.GoogleURL, i.GoogleURL)
}

// WriteInfo writes into Dir what a client needs, each file mode 0600
// since they hold the token: sandbox.json (Info), sandbox.env (Env, for
// `source`), provider.tf.example (ProviderConfig), and cli.env (CLIEnv,
// for gcloud and kubectl). sandbox.json is written last, so its presence
// means the sandbox is ready.
func (sb *Sandbox) WriteInfo() (string, error) {
	if err := sb.writeCLIEnv(); err != nil {
		return "", err
	}
	env := ""
	for _, e := range sb.Env() {
		k, v, _ := strings.Cut(e, "=")
		env += fmt.Sprintf("export %s=%q\n", k, v)
	}
	if err := os.WriteFile(filepath.Join(sb.Dir, "sandbox.env"), []byte(env), 0o600); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(sb.Dir, "provider.tf.example"), []byte(sb.ProviderConfig()), 0o600); err != nil {
		return "", err
	}
	b, err := json.MarshalIndent(sb.Info(), "", "  ")
	if err != nil {
		return "", err
	}
	file := filepath.Join(sb.Dir, "sandbox.json")
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return "", err
	}
	return file, os.Rename(tmp, file)
}
