// Package sandbox runs the local stand-in for a GKE cluster: a real
// kube-apiserver with etcd, its own CA and bearer-token auth, the Slice
// CRD installed, and a proxy in front of it that tests can use to cut watch
// connections. The emulated GKE and Compute APIs and the slice-controller
// simulator build on it.
package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"
)

// SliceCRD is the Slice custom resource definition the sandbox installs.
//
//go:embed crds/accelerator.gke.io_slices.yaml
var SliceCRD []byte

// Options configure Start. Zero values pick sensible defaults.
type Options struct {
	// Dir holds certificates, etcd data, logs and the kubeconfig. Default:
	// a new temporary directory, removed by Stop.
	Dir string
	// KubeAPIServer is the path of the kube-apiserver binary. Default:
	// $GKE_SANDBOX_KUBE_APISERVER, else kube-apiserver beside the running
	// program, else bin/kube-apiserver in this repository (built by
	// `make sandbox-bin`), else kube-apiserver on PATH.
	KubeAPIServer string
	// Etcd is the path of the etcd binary. Default: $GKE_SANDBOX_ETCD, else
	// etcd on PATH (Debian package etcd-server).
	Etcd string
	// KueueCRDs is the directory of Kueue's CRDs, which Start installs.
	// Default: see KueueCRDDir (bin/kueue-crds, from `make sandbox-bin`).
	KueueCRDs string
	// Log receives the output of etcd and kube-apiserver. Default: files in Dir.
	Log io.Writer
	// StartTimeout bounds start-up. Default 90s.
	StartTimeout time.Duration
	// Inventory is the emulated project and its reservations. Default:
	// DefaultInventory (two blocks of four sub-blocks).
	Inventory *Inventory
	// Faults are injected from the start; change them with SetFaults.
	Faults Faults
}

// Sandbox is a running sandbox.
type Sandbox struct {
	// Dir is the sandbox's working directory.
	Dir string
	// KubeHost is the URL clients use for Kubernetes (the sandbox proxy).
	KubeHost string
	// CAPEM is the sandbox CA certificate (PEM) that signed every endpoint.
	CAPEM []byte
	// Token is the bearer token of the sandbox administrator. Secret.
	Token string
	// Kubeconfig is the path of a kubeconfig for KubeHost.
	Kubeconfig string
	// GoogleURL is the base URL of the emulated GKE and Compute Engine
	// APIs (plain HTTP on loopback), for the provider's container_endpoint
	// and compute_endpoint; the control endpoint is under /sandbox/.
	GoogleURL string
	// Inventory is the emulated project.
	Inventory *Inventory
	// KueueVersion is the Kueue release whose CRDs are installed.
	KueueVersion string

	etcdURL      string
	apiserverURL string
	etcd         *process
	apiserver    *process
	proxy        *kubeProxy
	world        *world
	google       *http.Server
	controller   *sliceController
	stopCtx      context.CancelFunc
	removeDir    bool
	logFiles     []*os.File
	kueue        kueueAdmission
}

// Start brings the sandbox up and returns when every part is ready.
func Start(ctx context.Context, opts Options) (sb *Sandbox, err error) {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 90 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()

	kubeAPIServer, etcdBin, err := findBinaries(opts)
	if err != nil {
		return nil, err
	}
	kueueCRDs, err := KueueCRDDir(opts)
	if err != nil {
		return nil, err
	}

	sb = &Sandbox{Dir: opts.Dir}
	if sb.Dir == "" {
		if sb.Dir, err = os.MkdirTemp("", "gke-sandbox-"); err != nil {
			return nil, err
		}
		sb.removeDir = true
	} else if err := os.MkdirAll(sb.Dir, 0o700); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			sb.Stop()
		}
	}()

	certs, err := newPKI(sb.Dir)
	if err != nil {
		return nil, err
	}
	sb.CAPEM = certs.CAPEM
	sb.Token = randomHex(24)

	if err := sb.startEtcd(ctx, etcdBin, opts.Log); err != nil {
		return nil, err
	}
	if err := sb.startAPIServer(ctx, kubeAPIServer, certs, opts.Log); err != nil {
		return nil, err
	}
	if sb.proxy, err = newKubeProxy(sb.apiserverURL, certs.CAPEM, certs.CertFile, certs.KeyFile); err != nil {
		return nil, fmt.Errorf("starting the Kubernetes proxy: %w", err)
	}
	sb.KubeHost = sb.proxy.URL
	if err := sb.installSliceCRD(ctx); err != nil {
		return nil, err
	}
	if err := sb.installKueueCRDs(ctx, kueueCRDs); err != nil {
		return nil, err
	}
	if err := sb.installSliceAdmission(ctx); err != nil {
		return nil, err
	}
	if err := sb.writeKubeconfig(); err != nil {
		return nil, err
	}
	if err := sb.startGoogleAPIs(opts); err != nil {
		return nil, err
	}
	return sb, nil
}

// startGoogleAPIs serves the emulated GKE and Compute APIs and the control
// endpoint, and starts the slice-controller simulator.
func (sb *Sandbox) startGoogleAPIs(opts Options) error {
	sb.Inventory = opts.Inventory
	if sb.Inventory == nil {
		sb.Inventory = DefaultInventory()
	}
	// The emulated GKE and the controller talk to the API server directly,
	// so the proxy sees (and can cut, and counts) client traffic only.
	direct := sb.RESTConfig()
	direct.Host = sb.apiserverURL
	direct.QPS, direct.Burst = 500, 1000
	kube, err := kubernetes.NewForConfig(direct)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(direct)
	if err != nil {
		return err
	}
	w := newWorld(sb.Inventory, sb.Token)
	w.faults = opts.Faults
	w.clusterEndpoint = strings.TrimPrefix(sb.KubeHost, "https://")
	w.clusterCA = sb.CAPEM
	w.kube = kube
	sb.world = w
	deny := w.kubeDenial
	sb.proxy.deny.Store(&deny)

	runCtx, cancel := context.WithCancel(context.Background())
	sb.stopCtx = cancel
	sb.controller = newSliceController(w, kube, dyn)
	if err := sb.controller.start(runCtx); err != nil {
		return fmt.Errorf("starting the slice-controller simulator: %w", err)
	}

	mux := http.NewServeMux()
	mux.Handle("/compute/v1/", w.googleAPI("compute", func(f *Faults) *APIFaults { return &f.Compute }, w.computeHandler()))
	mux.Handle("/v1/", w.googleAPI("container", func(f *Faults) *APIFaults { return &f.Container }, w.containerHandler()))
	mux.Handle("/sandbox/", sb.controlHandler())
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sb.GoogleURL = "http://" + l.Addr().String() + "/"
	// The Compute clients join the endpoint and "/compute/v1/..." with a
	// slash of their own; accept the doubled slash rather than letting the
	// mux redirect (which would turn a POST into a GET).
	collapse := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "//") {
			r.URL.Path = "/" + strings.TrimLeft(r.URL.Path, "/")
			r.URL.RawPath = ""
		}
		mux.ServeHTTP(rw, r)
	})
	sb.google = &http.Server{Handler: collapse, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = sb.google.Serve(l) }()
	return nil
}

// Stop ends every process the sandbox started and removes its temporary
// directory. It is safe to call more than once.
func (sb *Sandbox) Stop() {
	if sb.google != nil {
		_ = sb.google.Close()
	}
	if sb.stopCtx != nil {
		sb.stopCtx()
	}
	if sb.proxy != nil {
		sb.proxy.close()
	}
	sb.apiserver.stop(10 * time.Second)
	sb.etcd.stop(10 * time.Second)
	sb.apiserver, sb.etcd = nil, nil
	for _, f := range sb.logFiles {
		_ = f.Close()
	}
	sb.logFiles = nil
	if sb.removeDir {
		_ = os.RemoveAll(sb.Dir)
	}
}

// RESTConfig is a client configuration for the sandbox's Kubernetes API,
// through the proxy, with TLS verified against the sandbox CA.
func (sb *Sandbox) RESTConfig() *rest.Config {
	return &rest.Config{
		Host:            sb.KubeHost,
		BearerToken:     sb.Token,
		TLSClientConfig: rest.TLSClientConfig{CAData: sb.CAPEM},
		QPS:             100,
		Burst:           200,
	}
}

// CutWatches ends every watch connection open through the proxy and
// returns how many it cut.
func (sb *Sandbox) CutWatches() int { return sb.proxy.CutWatches() }

// OpenWatches is the number of watch connections open through the proxy.
func (sb *Sandbox) OpenWatches() int { return sb.proxy.OpenWatches() }

// KubeRequests is the number of requests that went through the proxy.
func (sb *Sandbox) KubeRequests() int64 { return sb.proxy.requests.Load() }

// KubeRequestCounts returns the number of Kubernetes API requests that
// went through the proxy (client traffic only: the emulated GKE and the
// slice controller talk to the API server directly), by "verb resource",
// for example "list nodes", "list-page nodes", "watch slices",
// "create slices", "get slices/status".
func (sb *Sandbox) KubeRequestCounts() map[string]int64 { return sb.proxy.countsByKey() }

// SliceMarkedActive is when the slice-controller simulator first marked
// the named Slice ACTIVE or ACTIVE_DEGRADED (the start of the status
// update that stored it), and whether it has.
func (sb *Sandbox) SliceMarkedActive(name string) (time.Time, bool) {
	return sb.controller.markedActive(name)
}

// Processes are the PIDs of the processes the sandbox runs (for checks
// that nothing is left behind).
func (sb *Sandbox) Processes() []int {
	var pids []int
	for _, p := range []*process{sb.etcd, sb.apiserver} {
		if p != nil {
			pids = append(pids, p.cmd.Process.Pid)
		}
	}
	return pids
}

func (sb *Sandbox) logWriter(name string, log io.Writer) (io.Writer, error) {
	if log != nil {
		return log, nil
	}
	f, err := os.Create(filepath.Join(sb.Dir, name+".log"))
	if err != nil {
		return nil, err
	}
	sb.logFiles = append(sb.logFiles, f)
	return f, nil
}

func (sb *Sandbox) startEtcd(ctx context.Context, bin string, log io.Writer) error {
	clientPort, err := freePort()
	if err != nil {
		return err
	}
	peerPort, err := freePort()
	if err != nil {
		return err
	}
	w, err := sb.logWriter("etcd", log)
	if err != nil {
		return err
	}
	client := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peer := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	sb.etcd, err = startProcess("etcd", w, bin,
		"--name=sandbox",
		"--data-dir="+filepath.Join(sb.Dir, "etcd"),
		"--listen-client-urls="+client,
		"--advertise-client-urls="+client,
		"--listen-peer-urls="+peer,
		"--initial-advertise-peer-urls="+peer,
		"--initial-cluster=sandbox="+peer,
		"--log-level=warn",
	)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, sb.etcd, "etcd to be healthy", func(ctx context.Context) error {
		return httpOK(ctx, http.DefaultClient, client+"/health", "", `"health":"true"`)
	}); err != nil {
		return err
	}
	sb.etcdURL = client
	return nil
}

func (sb *Sandbox) startAPIServer(ctx context.Context, bin string, certs *pki, log io.Writer) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	tokens := filepath.Join(sb.Dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(sb.Token+`,sandbox-admin,sandbox-admin,"system:masters"`+"\n"), 0o600); err != nil {
		return err
	}
	w, err := sb.logWriter("kube-apiserver", log)
	if err != nil {
		return err
	}
	sb.apiserver, err = startProcess("kube-apiserver", w, bin,
		"--etcd-servers="+sb.etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir="+filepath.Join(sb.Dir, "apiserver-certs"),
		"--tls-cert-file="+certs.CertFile,
		"--tls-private-key-file="+certs.KeyFile,
		"--token-auth-file="+tokens,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+certs.ServiceAccountKeyFile,
		"--service-account-signing-key-file="+certs.ServiceAccountKeyFile,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--enable-priority-and-fairness=false",
		// etcd 3.4 (Debian's) lacks the progress notifications the watch
		// cache needs to serve a watch "from now" on a quiet resource: it
		// answers "Too large resource version". Serve watches from etcd.
		"--watch-cache=false",
		"--profiling=false",
		"--v=0",
	)
	if err != nil {
		return err
	}
	sb.apiserverURL = fmt.Sprintf("https://127.0.0.1:%d", port)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig(certs.CAPEM)}}
	return waitFor(ctx, sb.apiserver, "kube-apiserver to be ready", func(ctx context.Context) error {
		return httpOK(ctx, client, sb.apiserverURL+"/readyz", sb.Token, "ok")
	})
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

func (sb *Sandbox) installSliceCRD(ctx context.Context) error {
	var crd unstructured.Unstructured
	if err := yaml.Unmarshal(SliceCRD, &crd.Object); err != nil {
		return fmt.Errorf("reading the Slice CRD: %w", err)
	}
	dyn, err := dynamic.NewForConfig(sb.RESTConfig())
	if err != nil {
		return err
	}
	if _, err := dyn.Resource(crdGVR).Create(ctx, &crd, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("installing the Slice CRD: %w", err)
	}
	// Wait until the CRD is established and its resource is served.
	core, err := kubernetes.NewForConfig(sb.RESTConfig())
	if err != nil {
		return err
	}
	return waitFor(ctx, sb.apiserver, "the Slice CRD to be served", func(ctx context.Context) error {
		got, err := dyn.Resource(crdGVR).Get(ctx, crd.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		established := false
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				established = true
			}
		}
		if !established {
			return errors.New("not established")
		}
		_, err = core.Discovery().ServerResourcesForGroupVersion("accelerator.gke.io/v1beta1")
		return err
	})
}

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
}

// Info describes the running sandbox.
func (sb *Sandbox) Info() Info {
	return Info{
		Project: sb.Inventory.Project, Region: sb.Inventory.Region, Zone: sb.Inventory.Zone, Cluster: sb.Inventory.Cluster,
		GoogleURL: sb.GoogleURL, KubeHost: sb.KubeHost, Kubeconfig: sb.Kubeconfig,
		CAFile: filepath.Join(sb.Dir, "ca.crt"), Token: sb.Token, PIDs: sb.Processes(),
		KueueVersion: sb.KueueVersion,
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

func findBinaries(opts Options) (kubeAPIServer, etcd string, err error) {
	kubeAPIServer = firstNonEmpty(opts.KubeAPIServer, os.Getenv("GKE_SANDBOX_KUBE_APISERVER"))
	if kubeAPIServer == "" {
		// Beside the running program (bin/gke-sandbox and bin/kube-apiserver).
		if exe, err := os.Executable(); err == nil {
			if p := filepath.Join(filepath.Dir(exe), "kube-apiserver"); fileExists(p) {
				kubeAPIServer = p
			}
		}
	}
	if kubeAPIServer == "" {
		if root, ok := repoRoot(); ok {
			if p := filepath.Join(root, "bin", "kube-apiserver"); fileExists(p) {
				kubeAPIServer = p
			}
		}
	}
	if kubeAPIServer == "" {
		kubeAPIServer, _ = exec.LookPath("kube-apiserver")
	}
	if kubeAPIServer == "" || !fileExists(kubeAPIServer) {
		return "", "", errors.New("no kube-apiserver binary: run `make sandbox-bin` (it builds bin/kube-apiserver from tools/kube-apiserver), " +
			"or set GKE_SANDBOX_KUBE_APISERVER")
	}
	etcd = firstNonEmpty(opts.Etcd, os.Getenv("GKE_SANDBOX_ETCD"))
	if etcd == "" {
		etcd, _ = exec.LookPath("etcd")
	}
	if etcd == "" || !fileExists(etcd) {
		return "", "", errors.New("no etcd binary: run `make sandbox-bin` (it installs the Debian package etcd-server), or set GKE_SANDBOX_ETCD")
	}
	return kubeAPIServer, etcd, nil
}

// repoRoot finds this repository from the working directory (tests run in
// their package directory).
func repoRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil &&
			bytes.HasPrefix(b, []byte("module github.com/dynslice/terraform-provider-gke\n")) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func httpOK(ctx context.Context, client *http.Client, url, token, want string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
		return fmt.Errorf("%s: %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}

func tlsConfig(caPEM []byte) *tls.Config {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
