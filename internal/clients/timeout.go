package clients

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// DefaultRequestTimeout bounds the wait for the answer to one request (one
// attempt of a Google API request, or one Kubernetes API request): from
// the dial, through the TLS handshake, until the response headers come.
// The body of an answer that came in time is not bounded, so a long watch
// is not cut. Every Google call the provider makes answers at once (a
// create or delete returns an operation, which the engine then polls), and
// the API server answers a list or a watch with its headers at once, so
// 30 seconds of silence means nothing will answer.
const DefaultRequestTimeout = 30 * time.Second

// Advice of a NoAnswerError for each kind of endpoint.
const (
	googleNoAnswerAdvice = "check the API endpoint the provider is configured with (compute_endpoint, container_endpoint), " +
		"and that no proxy or firewall between here and it takes connections without forwarding them; " +
		"raise request_timeout if the endpoint is only slow"
	kubeNoAnswerAdvice = "check kubernetes.host (or the kubeconfig's server, or the cluster's endpoint in GKE), that the cluster is running, " +
		"and that no proxy or firewall between here and it takes connections without forwarding them; " +
		"raise request_timeout if the API server is only slow"
)

// NoAnswerError is a request whose endpoint took the connection (or let it
// hang) and sent no answer within the request timeout, on every attempt.
type NoAnswerError struct {
	// Endpoint is the scheme and host the request went to.
	Endpoint string
	// Timeout is how long the last attempt waited: the request timeout,
	// or less when the transport's own dial or TLS handshake timeout came
	// first.
	Timeout time.Duration
	// Attempts is how many attempts were made (1 for a request that is
	// not retried), over Elapsed.
	Attempts int
	Elapsed  time.Duration
	// Advice says what to check.
	Advice string
}

func (e *NoAnswerError) Error() string {
	tries := ""
	if e.Attempts > 1 {
		tries = fmt.Sprintf(" (%d attempts over %s)", e.Attempts, e.Elapsed.Round(100*time.Millisecond))
	}
	return fmt.Sprintf("no answer from %s in %s%s: %s", e.Endpoint, e.Timeout, tries, e.Advice)
}

// Is makes a NoAnswerError an kernel.ErrNoAnswer, so that the engine,
// which cannot see this package, recognises it.
func (e *NoAnswerError) Is(target error) bool { return target == kernel.ErrNoAnswer }

// answerWithin sends req through base and gives up when its response
// headers have not come within d on the real clock (no bound when d is
// not positive), reporting noAnswer and how long it waited by now. A
// timeout of the transport's own before the headers (the TLS
// handshake's, 10 s in Go's and client-go's transports, or the dial's)
// is a no-answer too: the host took the connection, or let it hang, and
// said nothing. The body of an answer that came in time is read without
// a bound: the attempt's context ends only when the body is closed. A
// request whose own context ended is not a no-answer.
func answerWithin(base http.RoundTripper, req *http.Request, d time.Duration, now func() time.Time) (resp *http.Response, noAnswer bool, waited time.Duration, err error) {
	start := now()
	if d <= 0 {
		resp, err = base.RoundTrip(req)
		if err != nil && isTimeout(err) && req.Context().Err() == nil {
			return nil, true, now().Sub(start).Round(100 * time.Millisecond), err
		}
		return resp, false, 0, err
	}
	ctx, cancel := context.WithCancel(req.Context())
	timer := time.AfterFunc(d, cancel)
	resp, err = base.RoundTrip(req.WithContext(ctx))
	fired := !timer.Stop()
	switch {
	case req.Context().Err() != nil:
		// The caller's context ended: not the endpoint's silence.
	case fired:
		// Whatever came, the attempt's context is cancelled, so an answer
		// that raced the timer could not be read.
		if resp != nil {
			_ = resp.Body.Close()
		}
		cancel()
		return nil, true, d, err
	case err != nil && isTimeout(err):
		cancel()
		return nil, true, now().Sub(start).Round(100 * time.Millisecond), err
	}
	if err != nil || resp == nil {
		cancel()
		return resp, false, 0, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, false, 0, nil
}

// isTimeout says whether err is a network timeout (a dial or a TLS
// handshake that did not finish in time); a context's deadline, which
// also says Timeout, is not one.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() && !errors.Is(err, context.DeadlineExceeded)
}

// cancelOnClose ends an attempt's context when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}

// headerTimeout bounds each request to the cluster's API server by the
// request timeout, up to its response headers: a host where nothing
// answers (a listener that never replies, a firewall that drops packets,
// a TLS handshake that never ends) fails the request with a NoAnswerError
// naming the host, instead of holding a list or a plan for ever. A
// watch's headers come at once, so its events are not cut. The
// Kubernetes clients retry nothing themselves here: an informer lists
// again, and the engine decides how long it waits for that.
type headerTimeout struct {
	base    http.RoundTripper
	timeout time.Duration
}

func (t *headerTimeout) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, noAnswer, waited, err := answerWithin(t.base, req, t.timeout, time.Now)
	if noAnswer {
		// Not wrapping err: client-go retries a request whose error is a
		// network timeout up to 10 times, which is the wait this ends.
		return nil, &NoAnswerError{Endpoint: req.URL.Scheme + "://" + req.URL.Host, Timeout: waited, Attempts: 1,
			Elapsed: waited, Advice: kubeNoAnswerAdvice}
	}
	return resp, err
}

// withHeaderTimeout is a rest.Config transport wrapper that applies
// headerTimeout.
func withHeaderTimeout(d time.Duration) func(http.RoundTripper) http.RoundTripper {
	return func(base http.RoundTripper) http.RoundTripper {
		return &headerTimeout{base: base, timeout: d}
	}
}
