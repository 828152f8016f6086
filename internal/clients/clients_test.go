package clients

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

const testToken = "ya29.test-access-token"

// fakeKubeAPIServer is a TLS server that answers /version and records the
// Authorization header it saw.
func fakeKubeAPIServer(t *testing.T) (*httptest.Server, *atomic.Value) {
	t.Helper()
	var auth atomic.Value
	auth.Store("")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.Store(r.Header.Get("Authorization"))
		if r.URL.Path != "/version" {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"major": "1", "minor": "35", "gitVersion": "v1.35.4"})
	}))
	t.Cleanup(srv.Close)
	return srv, &auth
}

func certPEM(srv *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

// otherCAPEM is a freshly generated CA certificate that signed nothing the
// test servers present. (Every httptest server shares one certificate.)
func otherCAPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "other-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// fakeGKE answers clusters.get for one cluster with the given endpoint and
// CA, and counts the calls.
func fakeGKE(t *testing.T, wantName, endpoint string, ca []byte) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+testToken {
			http.Error(w, `{"error":{"code":401,"message":"no token"}}`, http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/v1/"+wantName {
			http.Error(w, `{"error":{"code":404,"message":"not found: `+r.URL.Path+`"}}`, http.StatusNotFound)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"name":       "c1",
			"status":     "RUNNING",
			"endpoint":   endpoint,
			"masterAuth": map[string]string{"clusterCaCertificate": base64.StdEncoding.EncodeToString(ca)},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestKubernetes_DerivedFromGKECluster(t *testing.T) {
	t.Parallel()
	kube, auth := fakeKubeAPIServer(t)
	gke, calls := fakeGKE(t, "projects/p1/locations/us-central1/clusters/c1", strings.TrimPrefix(kube.URL, "https://"), certPEM(kube))
	endpoint, err := NormalizeEndpoint(gke.URL, "/v1")
	if err != nil {
		t.Fatal(err)
	}
	set, err := New(context.Background(), Config{
		Project: "p1", Location: "us-central1", Cluster: "c1",
		AccessToken: testToken, ContainerEndpoint: endpoint,
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 0 {
		t.Fatalf("New called the GKE API %d time(s); it must not call any API", calls.Load())
	}
	for range 2 {
		k, err := set.Kubernetes(context.Background())
		if err != nil {
			t.Fatalf("Kubernetes: %v", err)
		}
		v, err := k.Core.Discovery().ServerVersion()
		if err != nil {
			t.Fatalf("ServerVersion through the derived config: %v", err)
		}
		if v.GitVersion != "v1.35.4" {
			t.Errorf("GitVersion = %q", v.GitVersion)
		}
	}
	if got := auth.Load().(string); got != "Bearer "+testToken {
		t.Errorf("API server saw Authorization %q, want the Google access token", got)
	}
	if calls.Load() != 1 {
		t.Errorf("clusters.get called %d times for two uses, want 1 (cached)", calls.Load())
	}
}

// The CA from the GKE API is the only one trusted: a server with another
// certificate is refused.
func TestKubernetes_DerivedVerifiesTLS(t *testing.T) {
	t.Parallel()
	kube, _ := fakeKubeAPIServer(t)
	gke, _ := fakeGKE(t, "projects/p1/locations/us-central1/clusters/c1", strings.TrimPrefix(kube.URL, "https://"), otherCAPEM(t))
	set, err := New(context.Background(), Config{
		Project: "p1", Location: "us-central1", Cluster: "c1",
		AccessToken: testToken, ContainerEndpoint: gke.URL + "/",
	}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := set.Kubernetes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Core.Discovery().ServerVersion(); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("ServerVersion with the wrong CA = %v, want a certificate error", err)
	}
}

func TestKubernetes_DerivedErrors(t *testing.T) {
	t.Parallel()
	set, err := New(context.Background(), Config{Project: "p1", AccessToken: testToken}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = set.Kubernetes(context.Background())
	if err == nil || !strings.Contains(err.Error(), "location (or GOOGLE_REGION / GOOGLE_ZONE), cluster (or CLOUDSDK_CONTAINER_CLUSTER) is not set") {
		t.Fatalf("err = %v, want the missing settings named", err)
	}

	gke, _ := fakeGKE(t, "projects/p1/locations/l/clusters/other", "", nil)
	set, err = New(context.Background(), Config{Project: "p1", Location: "l", Cluster: "c1", AccessToken: testToken, ContainerEndpoint: gke.URL + "/"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = set.Kubernetes(context.Background())
	if err == nil || !strings.Contains(err.Error(), "reading cluster projects/p1/locations/l/clusters/c1 from the GKE API") || !strings.Contains(err.Error(), "404") {
		t.Fatalf("err = %v, want the cluster and the API's 404", err)
	}
}

func TestKubernetes_ExplicitHostAndKubeconfig(t *testing.T) {
	t.Parallel()
	kube, auth := fakeKubeAPIServer(t)
	ca := certPEM(kube)

	set, err := New(context.Background(), Config{Kubernetes: &KubernetesConfig{Host: kube.URL, Token: "kube-token", ClusterCACertificate: string(ca)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := set.Kubernetes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Core.Discovery().ServerVersion(); err != nil {
		t.Fatal(err)
	}
	if got := auth.Load().(string); got != "Bearer kube-token" {
		t.Errorf("Authorization = %q, want the kubernetes.token", got)
	}

	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "config")
	content := `apiVersion: v1
kind: Config
clusters:
- name: sandbox
  cluster:
    server: ` + kube.URL + `
    certificate-authority-data: ` + base64.StdEncoding.EncodeToString(ca) + `
users:
- name: u
  user:
    token: file-token
contexts:
- name: other
  context: {cluster: sandbox, user: u}
current-context: missing
`
	if err := os.WriteFile(kubeconfig, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := New(context.Background(), Config{Kubernetes: &KubernetesConfig{ConfigPath: kubeconfig}}, Options{}); err == nil ||
		!strings.Contains(err.Error(), "kubernetes.config_path") {
		t.Fatalf("kubeconfig whose current context is missing: err = %v", err)
	}
	set, err = New(context.Background(), Config{Kubernetes: &KubernetesConfig{ConfigPath: kubeconfig, ConfigContext: "other"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k, err = set.Kubernetes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Core.Discovery().ServerVersion(); err != nil {
		t.Fatal(err)
	}
	if got := auth.Load().(string); got != "Bearer file-token" {
		t.Errorf("Authorization = %q, want the kubeconfig's token", got)
	}
}

func TestDeferredSet(t *testing.T) {
	t.Parallel()
	set := NewDeferred([]string{"project", "kubernetes.host"})
	_, err1 := set.Container()
	_, err2 := set.Kubernetes(context.Background())
	_, err3 := set.ResourcePolicies()
	_, err4 := set.ReservationBlocks()
	_, err5 := set.ReservationSubBlocks()
	for _, err := range []error{err1, err2, err3, err4, err5} {
		if !errors.Is(err, ErrUnknownConfig) || !strings.Contains(err.Error(), "project, kubernetes.host depend(s) on values known only after apply") {
			t.Errorf("err = %v, want ErrUnknownConfig naming the attributes", err)
		}
	}
}

func TestReadCredentials(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := `{"type": "authorized_user", "client_id": "x", "client_secret": "s", "refresh_token": "r"}`
	file := filepath.Join(dir, "creds.json")
	if err := os.WriteFile(file, []byte(good), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{good, file, "  " + good + "\n"} {
		got, err := ReadCredentials(in)
		if err != nil || !strings.Contains(string(got), "authorized_user") {
			t.Errorf("ReadCredentials(%.20q) = %q, %v", in, got, err)
		}
	}
	secret := "-----BEGIN PRIVATE KEY-----MIIsecret"
	for in, want := range map[string]string{
		`{"type": "service_account", "private_key": "` + secret: "not valid JSON: syntax error at byte",
		`{"type": 7, "private_key": "` + secret + `"}`:          `field "type" has the wrong type`,
		`{"type": "gdch_service_account"}`:                      `type "gdch_service_account", which this provider does not accept`,
		`{"private_key": "` + secret + `"}`:                     `has no "type" field`,
		filepath.Join(dir, "missing.json"):                      "neither JSON",
		dir:                                                     "reading the credentials file",
	} {
		_, err := ReadCredentials(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadCredentials error = %v, want %q", err, want)
		}
		if err != nil && strings.Contains(err.Error(), "MIIsecret") {
			t.Errorf("error quotes the secret: %v", err)
		}
	}
}

func TestNormalizeEndpoint(t *testing.T) {
	t.Parallel()
	for in, want := range map[[2]string]string{
		{"https://compute.googleapis.com", "/compute/v1"}:             "https://compute.googleapis.com/",
		{"https://compute.googleapis.com/compute/v1/", "/compute/v1"}: "https://compute.googleapis.com/",
		{"http://127.0.0.1:8080/prefix/compute/v1", "/compute/v1"}:    "http://127.0.0.1:8080/prefix/",
		{"https://container.googleapis.com/v1/", "/v1"}:               "https://container.googleapis.com/",
		{" https://container.googleapis.com/?x=1#f ", "/v1"}:          "https://container.googleapis.com/",
	} {
		got, err := NormalizeEndpoint(in[0], in[1])
		if err != nil || got != want {
			t.Errorf("NormalizeEndpoint(%q) = %q, %v; want %q", in[0], got, err, want)
		}
	}
	for _, bad := range []string{"localhost:8080", "ftp://x/", "/just/a/path", "https://"} {
		if _, err := NormalizeEndpoint(bad, "/v1"); err == nil {
			t.Errorf("NormalizeEndpoint(%q) accepted", bad)
		}
	}
}

func TestSources(t *testing.T) {
	t.Parallel()
	cases := []struct {
		cfg               Config
		creds, kubernetes string
	}{
		{Config{}, "application_default_credentials", "gke_cluster"},
		{Config{AccessToken: "t", Kubernetes: &KubernetesConfig{Host: "h"}}, "access_token", "host"},
		{Config{Credentials: []byte("{}"), Kubernetes: &KubernetesConfig{ConfigPath: "p"}}, "credentials", "kubeconfig"},
	}
	for _, tc := range cases {
		if got := tc.cfg.CredentialsSource(); got != tc.creds {
			t.Errorf("CredentialsSource = %q, want %q", got, tc.creds)
		}
		if got := tc.cfg.KubernetesSource(); got != tc.kubernetes {
			t.Errorf("KubernetesSource = %q, want %q", got, tc.kubernetes)
		}
	}
}

// The typed client asks for protobuf, and still reads a server that
// answers JSON; the dynamic client (custom resources, which have no
// protobuf encoding) asks for JSON.
func TestKubernetes_TypedClientPrefersProtobuf(t *testing.T) {
	t.Parallel()
	accept := map[string]string{}
	var mu sync.Mutex
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		accept[r.URL.Path] = r.Header.Get("Accept")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v1/nodes":
			_, _ = w.Write([]byte(`{"kind":"NodeList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"n1"}}]}`))
		case "/apis/accelerator.gke.io/v1beta1/slices":
			_, _ = w.Write([]byte(`{"kind":"SliceList","apiVersion":"accelerator.gke.io/v1beta1","metadata":{},"items":[]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	set, err := New(t.Context(), Config{Kubernetes: &KubernetesConfig{Host: srv.URL, Token: "t", ClusterCACertificate: string(certPEM(srv))}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := set.Kubernetes(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := k.Core.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
	if err != nil || len(nodes.Items) != 1 || nodes.Items[0].Name != "n1" {
		t.Fatalf("nodes from a JSON answer: %v, %v", nodes, err)
	}
	gvr := schema.GroupVersionResource{Group: "accelerator.gke.io", Version: "v1beta1", Resource: "slices"}
	if _, err := k.Dynamic.Resource(gvr).List(t.Context(), metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got := accept["/api/v1/nodes"]; !strings.HasPrefix(got, "application/vnd.kubernetes.protobuf") || !strings.Contains(got, "application/json") {
		t.Errorf("typed client Accept = %q, want protobuf first, then JSON", got)
	}
	if got := accept["/apis/accelerator.gke.io/v1beta1/slices"]; strings.Contains(got, "protobuf") {
		t.Errorf("dynamic client Accept = %q, want JSON only", got)
	}
}
