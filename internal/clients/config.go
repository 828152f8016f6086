// Package clients builds, once per provider configuration, the API clients: the
// GKE and Compute Engine clients, with the one retry transport of the Google API
// requests (transport.go, retry_record.go) and their timeouts (timeout.go), and the
// Kubernetes clients of the target cluster (kubernetes.go). Set.Compute, Set.GKE
// and Set.Cluster implement the engine's interfaces (internal/engine/kernel) over
// them (adapters*.go); the provider's Configure builds the engine over those, and
// the clients never import it. Nothing here calls an API until a client is used,
// so a provider that only evaluates functions, or whose configuration is not known
// until apply, never reaches the network.
package clients

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"
)

// CloudPlatformScope is the OAuth scope requested for Google credentials.
const CloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"

// Config is the provider configuration after environment fallbacks: plain
// values, already checked for form.
type Config struct {
	Project  string
	Location string
	Cluster  string

	// Credentials is the content of a credentials JSON file (read from the
	// path when a path was given). Secret.
	Credentials []byte
	// AccessToken is an OAuth 2.0 access token. Secret.
	AccessToken               string
	ImpersonateServiceAccount string

	ComputeEndpoint   string
	ContainerEndpoint string

	// Kubernetes is nil when access is derived from the GKE cluster.
	Kubernetes *KubernetesConfig

	// RequestTimeout bounds each attempt of a Google API request and each
	// Kubernetes API request until its answer's headers come; 0 means
	// DefaultRequestTimeout.
	RequestTimeout time.Duration

	UserAgent string
}

// KubernetesConfig is an explicit way to reach the cluster's API server.
type KubernetesConfig struct {
	Host                 string
	Token                string // Secret.
	ClusterCACertificate string // PEM.
	ConfigPath           string
	ConfigContext        string
}

// CredentialsSource says where Google credentials come from, for logs and
// errors; it never contains the secret itself.
func (c *Config) CredentialsSource() string {
	switch {
	case c.AccessToken != "":
		return "access_token"
	case len(c.Credentials) > 0:
		return "credentials"
	default:
		return "application_default_credentials"
	}
}

// KubernetesSource says how the cluster's API server is reached.
func (c *Config) KubernetesSource() string {
	switch {
	case c.Kubernetes == nil:
		return "gke_cluster"
	case c.Kubernetes.ConfigPath != "":
		return "kubeconfig"
	default:
		return "host"
	}
}

// ReadCredentials accepts either the JSON content of a credentials file or a
// path to one and returns the JSON. Errors never quote the value, which may
// be a private key.
func ReadCredentials(value string) ([]byte, error) {
	trimmed := strings.TrimSpace(value)
	var content []byte
	if strings.HasPrefix(trimmed, "{") {
		content = []byte(trimmed)
	} else {
		b, err := os.ReadFile(expandHome(trimmed))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, errors.New("credentials is neither JSON (it does not start with '{') nor the path of an existing file")
			}
			return nil, fmt.Errorf("reading the credentials file: %w", err)
		}
		content = b
	}
	if _, err := credentialsType(content); err != nil {
		return nil, err
	}
	return content, nil
}

// credentialsType reads the "type" field of a credentials JSON document and
// checks that it is a kind this provider accepts.
func credentialsType(content []byte) (string, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(content, &head); err != nil {
		return "", errors.New("credentials is not valid JSON: " + jsonErrorWithoutContent(err))
	}
	switch head.Type {
	case "service_account", "authorized_user", "external_account", "external_account_authorized_user", "impersonated_service_account":
		return head.Type, nil
	case "":
		return "", errors.New(`credentials JSON has no "type" field; use a service account key, an authorized user file or an external account (workload identity federation) file`)
	default:
		return "", fmt.Errorf(`credentials JSON has type %q, which this provider does not accept; use service_account, authorized_user, external_account, external_account_authorized_user or impersonated_service_account`, head.Type)
	}
}

// jsonErrorWithoutContent keeps the position of a JSON syntax error but not
// the text around it.
func jsonErrorWithoutContent(err error) string {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return fmt.Sprintf("syntax error at byte %d", syntax.Offset)
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return fmt.Sprintf("field %q has the wrong type", typeErr.Field)
	}
	return "malformed document"
}

func expandHome(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return home + p[1:]
		}
	}
	return p
}

// NormalizeEndpoint checks that an endpoint override is an absolute http(s)
// URL and returns it with the API version path removed (suffix, for
// example "/compute/v1" or "/v1") and a trailing slash, the form the Google
// client libraries expect as a base path.
func NormalizeEndpoint(raw, versionSuffix string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Errorf("%q is not an absolute http(s) URL such as \"https://compute.googleapis.com/\"", raw)
	}
	path := strings.TrimRight(u.Path, "/")
	path = strings.TrimSuffix(path, versionSuffix)
	u.Path = strings.TrimRight(path, "/") + "/"
	u.RawQuery, u.Fragment = "", ""
	return u.String(), nil
}

// AttemptTimeout is the bound of one attempt of a request: RequestTimeout
// or its default.
func (c Config) AttemptTimeout() time.Duration { return c.requestTimeout() }

// requestTimeout is RequestTimeout or its default.
func (c Config) requestTimeout() time.Duration {
	if c.RequestTimeout > 0 {
		return c.RequestTimeout
	}
	return DefaultRequestTimeout
}
