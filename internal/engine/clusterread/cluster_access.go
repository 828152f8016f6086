package clusterread

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// ClusterAccessError is a failure to read the cluster's Kubernetes API
// that waiting does not cure: a certificate that does not verify, refused
// credentials or permissions, an API the cluster does not serve, an
// endpoint where nothing answers. It says what to check.
type ClusterAccessError struct {
	// What was being read ("nodes", "Slices").
	What string
	// Host is the API server's URL, when known.
	Host   string
	Err    error
	Advice string
}

func (e *ClusterAccessError) Error() string {
	at := ""
	if e.Host != "" {
		at = " at " + e.Host
	}
	return fmt.Sprintf("cannot read the cluster's %s%s: %v. %s", e.What, at, e.Err, e.Advice)
}

func (e *ClusterAccessError) Unwrap() error { return e.Err }

// informerSync follows one informer's first list, and the errors of its
// list and watch calls until then.
type informerSync struct {
	// what names the objects for messages; resource is the API resource
	// (for RBAC advice).
	what, resource string
	synced         cache.InformerSynced
	// host is the API server's URL, for messages; empty when unknown.
	host string
	// limit bounds the first list, from the first wait for it; grace is
	// how long it may keep failing with errors that can pass.
	limit, grace time.Duration

	mu    sync.Mutex
	err   error
	since time.Time // when the current run of errors began
	// waited is when a wait for the first list first began: every later
	// wait shares its deadline, so that a plan of many slices does not
	// wait again for a list that already failed to finish.
	waited time.Time
}

// newInformerSync follows the first list of the objects what (resource
// is their API resource) at host, which synced says is done, within the
// bounds of o: its FirstListTimeout and SyncGrace.
func newInformerSync(what, resource, host string, o Options, synced cache.InformerSynced) *informerSync {
	return &informerSync{what: what, resource: resource, host: host, synced: synced,
		limit: o.firstListTimeout(), grace: o.syncGrace()}
}

// deadline is when the first list must have finished.
func (s *informerSync) deadline() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.waited.IsZero() {
		s.waited = time.Now()
	}
	return s.waited.Add(s.limit)
}

// record is the informer's watch error handler: list and watch errors.
func (s *informerSync) record(_ context.Context, _ *cache.Reflector, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		s.since = time.Now()
	}
	s.err = err
}

// noAnswer records err when it is a request with no answer, or an error
// that waiting does not cure (a refused connection, a name that does not
// resolve, a certificate that does not verify), and returns it. The
// informer's error handler hears of a failed first list only after
// client-go has tried a streaming list and then fallen back to a paged
// one, and never of a refused connection: client-go's streaming list
// retries that one for ever, with backoff. Such a host is known at the
// first request.
func (s *informerSync) noAnswer(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if _, permanent := accessAdvice(s, err); permanent || errors.Is(err, kernel.ErrNoAnswer) {
		s.record(ctx, nil, err)
	}
	return err
}

func (s *informerSync) lastError() (time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.since, s.err
}

// DefaultFirstListTimeout bounds an informer's first list: the nodes of a
// full pod (2304, listed in pages of 500) or its Slices. A host that takes
// the requests and never answers fails sooner, each request bounded by
// the request timeout.
const DefaultFirstListTimeout = time.Minute

// DefaultSyncGrace is how long an informer's first list may keep failing
// with errors that can pass (a dropped connection, a 5xx, a timeout).
const DefaultSyncGrace = 15 * time.Second

// syncPoll is how often the wait for the first lists looks at the
// informers.
const syncPoll = 20 * time.Millisecond

// waitSynced waits until every informer has listed once. A list or watch
// error that waiting does not cure ends the wait at once with a
// ClusterAccessError; other errors end it after the informer's grace
// (Options.SyncGrace), and a list that neither finishes nor fails ends it
// at the informer's limit (Options.FirstListTimeout), also with a
// ClusterAccessError: a wait never ends without its cause.
func waitSynced(ctx context.Context, syncs ...*informerSync) error {
	deadlines := make([]time.Time, len(syncs))
	for i, s := range syncs {
		deadlines[i] = s.deadline()
	}
	tick := time.NewTicker(syncPoll)
	defer tick.Stop()
	for {
		var pending []string
		for i, s := range syncs {
			if s.synced() {
				continue
			}
			pending = append(pending, s.what)
			since, err := s.lastError()
			if err != nil {
				if advice, permanent := accessAdvice(s, err); permanent {
					return &ClusterAccessError{What: s.what, Host: s.host, Err: err, Advice: advice}
				}
				if time.Since(since) > s.grace {
					return &ClusterAccessError{What: s.what, Host: s.host, Err: err, Advice: fmt.Sprintf(
						"It kept failing for %s: check that the cluster's API server is reachable from here and healthy", s.grace)}
				}
			}
			if time.Now().After(deadlines[i]) {
				late := fmt.Errorf("the first list did not finish in %s", s.limit)
				if err != nil {
					late = fmt.Errorf("%w (last error: %w)", late, err)
				}
				return &ClusterAccessError{What: s.what, Host: s.host, Err: late, Advice: "Check that the cluster's API server is " +
					"reachable from here and healthy, and that no proxy between here and it holds its answers"}
			}
		}
		if len(pending) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("listing the cluster's %s: %w", strings.Join(pending, " and "), ctx.Err())
		case <-tick.C:
		}
	}
}

// accessAdvice says what to check when err is one that waiting does not
// cure.
func accessAdvice(s *informerSync, err error) (string, bool) {
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	var dnsErr *net.DNSError
	text := err.Error()
	switch {
	case errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &verify),
		strings.Contains(text, "x509: "), strings.Contains(text, "tls: failed to verify"):
		return "The API server's certificate does not verify against the CA the provider trusts: check kubernetes.cluster_ca_certificate " +
			"(or the kubeconfig's certificate-authority-data), and that the host is the cluster's endpoint", true
	case apierrors.IsUnauthorized(err):
		return "The API server did not accept the credentials: check kubernetes.token or the kubeconfig's user, or the Google " +
			"credentials the provider authenticates with (a GKE cluster accepts the Google identity's access token)", true
	case apierrors.IsForbidden(err):
		return fmt.Sprintf("The identity the provider uses may not list and watch %s: grant it get, list and watch on %s "+
			"(Kubernetes RBAC, or an IAM role such as roles/container.viewer)", s.resource, s.resource), true
	case apierrors.IsNotFound(err) && s.resource != "nodes":
		return fmt.Sprintf("The cluster does not serve %s (%s/%s): dynamic slicing needs a GKE version that installs the Slice API "+
			"(1.35.2-gke.1842000 or later for slices of 4x4x4 and larger)", s.resource, kernel.SliceGVR.Group, kernel.SliceGVR.Version), true
	case errors.Is(err, syscall.ECONNREFUSED), errors.As(err, &dnsErr) && !dnsErr.IsTemporary:
		return "Nothing answers at the cluster's endpoint: check kubernetes.host (or the kubeconfig's server), and that the cluster is running", true
	case errors.Is(err, kernel.ErrNoAnswer):
		// The error says how long it waited and what to check.
		return "Nothing that reads the cluster can run until it answers", true
	}
	return "", false
}
