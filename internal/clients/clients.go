package clients

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	compute "cloud.google.com/go/compute/apiv1"
	"golang.org/x/oauth2"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/option"
)

// Set holds every client the provider uses. It is built once in the
// provider's Configure and shared by all resources, data sources and
// functions of the process.
type Set struct {
	cfg Config
	// opts are the budgets and cadences of the Google API requests and of
	// the engine.
	opts Options

	// unknown lists provider attributes whose values were not known when the
	// provider was configured (they come from resources not yet applied).
	unknown []string

	tokens *lazyTokenSource

	container            *container.Service
	resourcePolicies     *compute.ResourcePoliciesClient
	reservations         *compute.ReservationsClient
	reservationBlocks    *compute.ReservationBlocksClient
	reservationSubBlocks *compute.ReservationSubBlocksClient
	reservationSlots     *compute.ReservationSlotsClient
	instances            *compute.InstancesClient
	regionOperations     *compute.RegionOperationsClient

	kubeMu sync.Mutex
	kube   *Kubernetes

	// clusterMu guards cluster, the provider's cluster as read by its one
	// clusters.get (getCluster).
	clusterMu sync.Mutex
	cluster   *container.Cluster
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
// on first use. opts are the budgets and cadences the clients and the
// engine wait on (a zero field takes its default); the per-attempt bound
// of a request is cfg.RequestTimeout, a user setting.
func New(ctx context.Context, cfg Config, opts Options) (*Set, error) {
	s := &Set{cfg: cfg, opts: opts}
	s.tokens = &lazyTokenSource{build: func() (oauth2.TokenSource, error) {
		// The token source outlives the Configure call, so it must not
		// hold that call's context.
		return googleTokenSource(context.Background(), cfg)
	}}

	// One HTTP client for every Google API: transient errors are retried
	// (RetryTransport), each attempt with a fresh token.
	httpClient := &http.Client{Transport: &userAgentTransport{
		userAgent: cfg.UserAgent,
		base:      googleRetry(&oauth2.Transport{Source: s.tokens, Base: http.DefaultTransport}, cfg, opts),
	}}
	with := func(endpoint string) []option.ClientOption {
		o := []option.ClientOption{option.WithHTTPClient(httpClient)}
		if endpoint != "" {
			o = append(o, option.WithEndpoint(endpoint))
		}
		return o
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
	if s.reservationSlots, err = compute.NewReservationSlotsRESTClient(ctx, computeOpts...); err != nil {
		return nil, fmt.Errorf("building the Compute Engine reservation slots client: %w", err)
	}
	if s.instances, err = compute.NewInstancesRESTClient(ctx, computeOpts...); err != nil {
		return nil, fmt.Errorf("building the Compute Engine instances client: %w", err)
	}
	if s.regionOperations, err = compute.NewRegionOperationsRESTClient(ctx, computeOpts...); err != nil {
		return nil, fmt.Errorf("building the Compute Engine region operations client: %w", err)
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

// googleRetry is the RetryTransport of the Google API requests over base:
// each attempt bounded by cfg's request timeout, the retries by opts'
// budget and backoff.
func googleRetry(base http.RoundTripper, cfg Config, opts Options) *RetryTransport {
	retry := NewRetryTransport(base)
	retry.AttemptTimeout = cfg.requestTimeout()
	retry.Check = CheckGoogleAnswer
	if opts.RetryBudget > 0 {
		retry.MaxElapsed = opts.RetryBudget
	}
	if opts.RetryInitial > 0 {
		retry.Initial = opts.RetryInitial
	}
	if opts.RetryMax > 0 {
		retry.Max = opts.RetryMax
	}
	return retry
}

// Config returns the resolved configuration (defaults for resources).
func (s *Set) Config() Config { return s.cfg }

// Ready is nil, or the error of a set built from a configuration that was
// not known (NewDeferred), naming the attributes that were not.
func (s *Set) Ready() error { return s.ready() }

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
