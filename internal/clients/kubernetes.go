package clients

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/oauth2"
	container "google.golang.org/api/container/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// The clients of the target cluster's API server: its REST config, from
// the GKE API's description of the cluster or from an explicit kubernetes
// block, and the typed and dynamic clients built on it.

// Kubernetes holds the clients of the target cluster's API server.
type Kubernetes struct {
	Core    kubernetes.Interface
	Dynamic dynamic.Interface
	Config  *rest.Config
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
	// A successful answer that is not a Kubernetes object is named.
	cfg.Wrap(withKubeAnswerCheck)
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
