package clients

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/impersonate"
	"google.golang.org/api/option"
)

// The Google APIs' HTTP client's parts: credentials resolved on the first
// request, the bearer token the Kubernetes clients borrow, and the
// provider's User-Agent.

// googleBearer authenticates a Kubernetes client as the Google identity.
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
