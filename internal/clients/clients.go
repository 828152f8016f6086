package clients

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/impersonate"
	"google.golang.org/api/option"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
)

// Set holds every client the provider uses. It is built once in the
// provider's Configure and shared by all resources, data sources and
// functions of the process.
type Set struct {
	cfg Config

	// unknown lists provider attributes whose values were not known when the
	// provider was configured (they come from resources not yet applied).
	unknown []string

	tokens *lazyTokenSource

	container            *container.Service
	resourcePolicies     *compute.ResourcePoliciesClient
	reservations         *compute.ReservationsClient
	reservationBlocks    *compute.ReservationBlocksClient
	reservationSubBlocks *compute.ReservationSubBlocksClient
	instances            *compute.InstancesClient

	kubeMu sync.Mutex
	kube   *Kubernetes

	// clusterMu guards cluster, the provider's cluster as read by its one
	// clusters.get (getCluster).
	clusterMu sync.Mutex
	cluster   *container.Cluster

	engineMu sync.Mutex
	engine   *engine.Engine
}

// Kubernetes holds the clients of the target cluster's API server.
type Kubernetes struct {
	Core    kubernetes.Interface
	Dynamic dynamic.Interface
	Config  *rest.Config
}

// ErrUnknownConfig is returned by every getter of a Set built from a
// configuration that was not yet known.
var ErrUnknownConfig = errors.New("provider configuration is not known yet")

// NewDeferred returns a Set for a provider whose listed attributes are not
// known at configure time. It calls no API; every client getter reports
// which attributes were unknown.
func NewDeferred(unknown []string) *Set {
	return &Set{unknown: unknown}
}

// New builds the clients. It reads no credentials and calls no API: Google
// credentials are resolved on the first request and the Kubernetes clients
// on first use.
func New(ctx context.Context, cfg Config) (*Set, error) {
	s := &Set{cfg: cfg}
	s.tokens = &lazyTokenSource{build: func() (oauth2.TokenSource, error) {
		// The token source outlives the Configure call, so it must not
		// hold that call's context.
		return googleTokenSource(context.Background(), cfg)
	}}

	// One HTTP client for every Google API: transient errors are retried
	// (engine.RetryTransport), each attempt with a fresh token.
	retry := NewRetryTransport(&oauth2.Transport{Source: s.tokens, Base: http.DefaultTransport})
	retry.AttemptTimeout = cfg.requestTimeout()
	httpClient := &http.Client{Transport: &userAgentTransport{
		userAgent: cfg.UserAgent,
		base:      retry,
	}}
	with := func(endpoint string) []option.ClientOption {
		opts := []option.ClientOption{option.WithHTTPClient(httpClient)}
		if endpoint != "" {
			opts = append(opts, option.WithEndpoint(endpoint))
		}
		return opts
	}

	var err error
	if s.container, err = container.NewService(ctx, with(cfg.ContainerEndpoint)...); err != nil {
		return nil, fmt.Errorf("building the GKE client: %w", err)
	}
	computeOpts := with(strings.TrimSuffix(cfg.ComputeEndpoint, "/"))
	if s.resourcePolicies, err = compute.NewResourcePoliciesRESTClient(ctx, computeOpts...); err != nil {
		return nil, fmt.Errorf("building the Compute Engine resource policies client: %w", err)
	}
	if s.reservations, err = compute.NewReservationsRESTClient(ctx, computeOpts...); err != nil {
		return nil, fmt.Errorf("building the Compute Engine reservations client: %w", err)
	}
	if s.reservationBlocks, err = compute.NewReservationBlocksRESTClient(ctx, computeOpts...); err != nil {
		return nil, fmt.Errorf("building the Compute Engine reservation blocks client: %w", err)
	}
	if s.reservationSubBlocks, err = compute.NewReservationSubBlocksRESTClient(ctx, computeOpts...); err != nil {
		return nil, fmt.Errorf("building the Compute Engine reservation sub-blocks client: %w", err)
	}
	if s.instances, err = compute.NewInstancesRESTClient(ctx, computeOpts...); err != nil {
		return nil, fmt.Errorf("building the Compute Engine instances client: %w", err)
	}
	if cfg.Kubernetes != nil {
		// An explicit kubeconfig or host is checked now, without calling it,
		// so that a wrong path or certificate is reported at plan time.
		restCfg, err := explicitRESTConfig(*cfg.Kubernetes, s.tokens)
		if err != nil {
			return nil, err
		}
		if s.kube, err = newKubernetes(restCfg, cfg.UserAgent, cfg.requestTimeout()); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Config returns the resolved configuration (defaults for resources).
func (s *Set) Config() Config { return s.cfg }

func (s *Set) ready() error {
	if len(s.unknown) > 0 {
		return fmt.Errorf("%w: %s depend(s) on values known only after apply. "+
			"Apply the resources they come from first (for example with -target), or configure the provider from values known at plan time",
			ErrUnknownConfig, strings.Join(s.unknown, ", "))
	}
	return nil
}

// Container returns the GKE API client.
func (s *Set) Container() (*container.Service, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	return s.container, nil
}

// ResourcePolicies returns the Compute Engine resource policies client.
func (s *Set) ResourcePolicies() (*compute.ResourcePoliciesClient, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	return s.resourcePolicies, nil
}

// ReservationBlocks returns the Compute Engine reservation blocks client.
func (s *Set) ReservationBlocks() (*compute.ReservationBlocksClient, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	return s.reservationBlocks, nil
}

// ReservationSubBlocks returns the Compute Engine reservation sub-blocks client.
func (s *Set) ReservationSubBlocks() (*compute.ReservationSubBlocksClient, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	return s.reservationSubBlocks, nil
}

// Kubernetes returns the clients of the cluster's API server. Unless the
// provider has an explicit kubernetes block, the first call reads the
// cluster's endpoint and CA certificate from the GKE API and authenticates
// with the provider's Google access token; the result is kept for the life
// of the process. A failed lookup is not kept, so a later call retries it.
func (s *Set) Kubernetes(ctx context.Context) (*Kubernetes, error) {
	if err := s.ready(); err != nil {
		return nil, err
	}
	s.kubeMu.Lock()
	defer s.kubeMu.Unlock()
	if s.kube != nil {
		return s.kube, nil
	}
	restCfg, err := s.clusterRESTConfig(ctx)
	if err != nil {
		return nil, err
	}
	kube, err := newKubernetes(restCfg, s.cfg.UserAgent, s.cfg.requestTimeout())
	if err != nil {
		return nil, err
	}
	s.kube = kube
	return kube, nil
}

// ClusterName is the full GKE name of the configured cluster.
func (c Config) ClusterName() (string, error) {
	var missing []string
	if c.Project == "" {
		missing = append(missing, "project (or GOOGLE_PROJECT)")
	}
	if c.Location == "" {
		missing = append(missing, "location (or GOOGLE_REGION / GOOGLE_ZONE)")
	}
	if c.Cluster == "" {
		missing = append(missing, "cluster (or CLOUDSDK_CONTAINER_CLUSTER)")
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("the provider reaches Kubernetes through the GKE cluster it is configured with, but %s is not set; "+
			"set them, or give a kubernetes block with host or config_path", strings.Join(missing, ", "))
	}
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", c.Project, c.Location, c.Cluster), nil
}

func (s *Set) clusterRESTConfig(ctx context.Context) (*rest.Config, error) {
	name, err := s.cfg.ClusterName()
	if err != nil {
		return nil, err
	}
	cluster, err := s.getCluster(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("reading cluster %s from the GKE API to find its Kubernetes endpoint: %w", name, err)
	}
	cfg, err := restConfigOf(name, cluster, s.tokens)
	if err != nil {
		s.forgetCluster()
	}
	return cfg, err
}

// restConfigOf is the REST config of the cluster's API server, as the
// GKE API describes it.
func restConfigOf(name string, cluster *container.Cluster, tokens oauth2.TokenSource) (*rest.Config, error) {
	if cluster.Endpoint == "" {
		return nil, fmt.Errorf("cluster %s has no endpoint yet (status %s); wait until it is RUNNING", name, cluster.Status)
	}
	if cluster.MasterAuth == nil || cluster.MasterAuth.ClusterCaCertificate == "" {
		return nil, fmt.Errorf("cluster %s has no CA certificate in masterAuth; the provider will not talk to its API server without verifying TLS", name)
	}
	ca, err := base64.StdEncoding.DecodeString(cluster.MasterAuth.ClusterCaCertificate)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: masterAuth.clusterCaCertificate is not base64: %w", name, err)
	}
	if err := checkPEM(ca); err != nil {
		return nil, fmt.Errorf("cluster %s: masterAuth.clusterCaCertificate: %w", name, err)
	}
	host := cluster.Endpoint
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	cfg := &rest.Config{Host: host, TLSClientConfig: rest.TLSClientConfig{CAData: ca}}
	cfg.Wrap(googleBearer(tokens))
	return cfg, nil
}

func explicitRESTConfig(k KubernetesConfig, tokens oauth2.TokenSource) (*rest.Config, error) {
	if k.ConfigPath != "" {
		rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: expandHome(k.ConfigPath)}
		overrides := &clientcmd.ConfigOverrides{CurrentContext: k.ConfigContext}
		cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("kubernetes.config_path: loading %s: %w", k.ConfigPath, err)
		}
		return cfg, nil
	}
	if k.Host == "" {
		return nil, errors.New("the kubernetes block needs host or config_path")
	}
	host := k.Host
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	cfg := &rest.Config{Host: host}
	if k.ClusterCACertificate != "" {
		if err := checkPEM([]byte(k.ClusterCACertificate)); err != nil {
			return nil, fmt.Errorf("kubernetes.cluster_ca_certificate: %w", err)
		}
		cfg.CAData = []byte(k.ClusterCACertificate)
	}
	if k.Token != "" {
		cfg.BearerToken = k.Token
	} else {
		// No token: authenticate as the Google identity, as GKE accepts.
		cfg.Wrap(googleBearer(tokens))
	}
	return cfg, nil
}

// The Kubernetes client's rate limit (client-go's token bucket). A plan
// makes a fixed number of requests whatever the size of the stack (one
// list-and-watch of nodes and one of Slices, shared by every resource), far
// fewer than the burst, so a plan never waits on it; applies of many
// slices and pools stay within it without waiting either. The client-go
// defaults (5 QPS, burst 10) would make an apply of many resources wait.
const (
	KubeQPS   = 50
	KubeBurst = 100
)

func newKubernetes(cfg *rest.Config, userAgent string, requestTimeout time.Duration) (*Kubernetes, error) {
	cfg = rest.CopyConfig(cfg)
	if userAgent != "" {
		cfg.UserAgent = userAgent
	}
	// Every request is bounded from its dial, through the TLS handshake,
	// to its response headers, so that a host that takes the connection
	// and never answers fails a list in seconds, naming the host. Not
	// rest.Config.Timeout: that bounds whole responses, watches included.
	cfg.Wrap(withHeaderTimeout(requestTimeout))
	cfg.QPS, cfg.Burst = KubeQPS, KubeBurst
	core, err := kubernetes.NewForConfig(protobuf(cfg))
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes client: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes dynamic client: %w", err)
	}
	return &Kubernetes{Core: core, Dynamic: dyn, Config: cfg}, nil
}

// protobuf is cfg for the typed client: built-in objects (nodes above
// all: a full pod has 2304, listed by every provider process) travel as
// protobuf, Kubernetes' own encoding between its components, smaller and
// cheaper to encode and decode than JSON; JSON stays accepted, for a
// server or proxy that does not offer protobuf. Custom resources (the
// dynamic client) are JSON only.
func protobuf(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return cfg
}

func checkPEM(data []byte) error {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return errors.New("no PEM-encoded certificate found")
	}
	return nil
}

func googleBearer(tokens oauth2.TokenSource) func(http.RoundTripper) http.RoundTripper {
	return func(base http.RoundTripper) http.RoundTripper {
		return &oauth2.Transport{Source: tokens, Base: base}
	}
}

// googleTokenSource resolves Google credentials: an access token, a
// credentials JSON, or Application Default Credentials; then impersonation.
func googleTokenSource(ctx context.Context, cfg Config) (oauth2.TokenSource, error) {
	var base oauth2.TokenSource
	switch {
	case cfg.AccessToken != "":
		base = oauth2.StaticTokenSource(&oauth2.Token{AccessToken: cfg.AccessToken})
	case len(cfg.Credentials) > 0:
		credType, err := credentialsType(cfg.Credentials)
		if err != nil {
			return nil, err
		}
		creds, err := google.CredentialsFromJSONWithType(ctx, cfg.Credentials, google.CredentialsType(credType), CloudPlatformScope)
		if err != nil {
			return nil, fmt.Errorf("loading credentials: %w", err)
		}
		base = creds.TokenSource
	default:
		creds, err := google.FindDefaultCredentials(ctx, CloudPlatformScope)
		if err != nil {
			return nil, fmt.Errorf("no Google credentials: set credentials or access_token, or configure Application Default Credentials "+
				"(gcloud auth application-default login, or GOOGLE_APPLICATION_CREDENTIALS): %w", err)
		}
		base = creds.TokenSource
	}
	if cfg.ImpersonateServiceAccount == "" {
		return base, nil
	}
	ts, err := impersonate.CredentialsTokenSource(ctx, impersonate.CredentialsConfig{
		TargetPrincipal: cfg.ImpersonateServiceAccount,
		Scopes:          []string{CloudPlatformScope},
	}, option.WithTokenSource(base))
	if err != nil {
		return nil, fmt.Errorf("impersonating %s: %w", cfg.ImpersonateServiceAccount, err)
	}
	return ts, nil
}

// userAgentTransport sets the provider's User-Agent on every request.
type userAgentTransport struct {
	userAgent string
	base      http.RoundTripper
}

func (t *userAgentTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.userAgent != "" {
		req = req.Clone(req.Context())
		req.Header.Set("User-Agent", t.userAgent+" "+req.Header.Get("User-Agent"))
	}
	return t.base.RoundTrip(req)
}

// lazyTokenSource resolves credentials on the first request for a token,
// so that configuring the provider never needs them.
type lazyTokenSource struct {
	build func() (oauth2.TokenSource, error)

	mu sync.Mutex
	ts oauth2.TokenSource
}

func (l *lazyTokenSource) Token() (*oauth2.Token, error) {
	l.mu.Lock()
	if l.ts == nil {
		ts, err := l.build()
		if err != nil {
			l.mu.Unlock()
			return nil, err
		}
		l.ts = oauth2.ReuseTokenSource(nil, ts)
	}
	ts := l.ts
	l.mu.Unlock()
	return ts.Token()
}
