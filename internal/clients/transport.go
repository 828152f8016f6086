package clients

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// Retry policy of the Google API requests (documented in the provider's
// index page, "Retries and timeouts").
const (
	// DefaultMaxElapsed bounds the time one request spends retrying: no
	// attempt starts, and no wait is begun, past it. It is the only bound
	// of a request's retries besides its context: a request keeps retrying
	// for as long as the budget allows (some 20 attempts when every one
	// fails), so a flaky API does not fail an apply on a run of bad luck.
	DefaultMaxElapsed = 2 * time.Minute
	// MaxNoAnswerAttempts bounds the attempts of a request that had no
	// answer: each costs a whole AttemptTimeout, and an endpoint that
	// answers nothing is more often a wrong one than a flaky one.
	MaxNoAnswerAttempts = 8
)

// RetryTransport retries transient failures of Google API requests, with
// exponential backoff and jitter (a Retry-After is honoured), for as long
// as its time budget (MaxElapsed) allows, and always within the request's
// context (the resource's timeout; Ctrl-C cancels it):
//
//   - idempotent requests (GET, HEAD, PUT, DELETE, OPTIONS) on 429 rate
//     limits, 500, 502, 503 and 504 answers and dropped connections;
//   - POST (creates) on 429 and 503 and dropped connections only. A POST
//     that was applied before the connection dropped or the 503 came is
//     answered 409 on the retry; the engine then adopts the object it made
//     (a caller that put a retryRecord on the request's context learns
//     there which attempt the answer is to);
//   - every request whose attempt had no answer (no response headers)
//     within AttemptTimeout. For a POST that is as ambiguous as a dropped
//     connection (the create may have been applied), and is retried for
//     the same reason: a retry that meets the object gets a 409, which the
//     engine adopts. A no-answer is retried only while a whole further
//     attempt fits in MaxElapsed, and MaxNoAnswerAttempts times at most,
//     so the request fails within the budget with a NoAnswerError naming
//     the endpoint;
//   - with a Check (CheckGoogleAnswer), safe requests (GET, HEAD) whose
//     answer is malformed (a cut JSON, a proxy's HTML page, an empty
//     200), as a 5xx is; the request then fails, when the budget runs
//     out, with the last MalformedAnswerError and its count of attempts.
//     A change whose answer is malformed is not sent again (it may have
//     been applied) unless its status is one a change is retried on.
//
// Quota exhaustion (a 429 whose reason is a quota) is not retried: waiting
// does not refill a quota. An endpoint that refuses connections, a host
// name that does not resolve and a certificate that does not verify fail
// at once, with an EndpointError naming the endpoint. It never waits on
// operations; that is the engine's job. The caller's request is not
// modified: each attempt sends a clone.
//
// Its time is Now and Sleep: every elapsed time it reckons (against
// MaxElapsed, and in its errors) is read from Now, and every wait between
// attempts (a backoff or a Retry-After) is a Sleep, so that a test can
// drive it with a clock of its own. Only each attempt's bound
// (AttemptTimeout) is always the real clock's: it bounds a real wait on
// the network.
type RetryTransport struct {
	Base http.RoundTripper
	// Initial and Max bound the backoff between attempts; 0 means
	// DefaultRetryInitial and DefaultRetryMax.
	Initial, Max time.Duration
	// MaxAttempts, when above 0, bounds the attempts too; 0 means no bound
	// but MaxElapsed (the provider's transport sets none).
	MaxAttempts int
	// MaxElapsed bounds the time spent on one request; 0 means
	// DefaultMaxElapsed.
	MaxElapsed time.Duration
	// AttemptTimeout bounds each attempt until its response headers come
	// (the body of an answer is not bounded); 0 means
	// DefaultRequestTimeout. No attempt outlasts MaxElapsed either.
	AttemptTimeout time.Duration
	// Now is the time (nil: time.Now).
	Now func() time.Time
	// Sleep waits d before the next attempt and returns nil, or returns
	// ctx's error as soon as ctx ends (nil: a timer on the real clock).
	Sleep func(ctx context.Context, d time.Duration) error
	// Check, when set, looks at every answer before it is handed on: a
	// malformed one (CheckGoogleAnswer) is retried like a 5xx when the
	// request is safe (GET, HEAD), within the budget, and fails the
	// request with its MalformedAnswerError otherwise.
	Check AnswerCheck
}

// NewRetryTransport wraps base (http.DefaultTransport when nil).
func NewRetryTransport(base http.RoundTripper) *RetryTransport {
	if base == nil {
		base = http.DefaultTransport
	}
	return &RetryTransport{Base: base, Initial: DefaultRetryInitial, Max: DefaultRetryMax,
		MaxElapsed: DefaultMaxElapsed, AttemptTimeout: DefaultRequestTimeout}
}

// sleep waits d, or until ctx ends, on the real clock.
func sleep(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// EndpointError is a request that could not reach its endpoint for a
// reason that retrying does not cure.
type EndpointError struct {
	// Endpoint is the scheme and host the request went to.
	Endpoint string
	// Problem says what is wrong, and what to check.
	Problem string
	Err     error
}

func (e *EndpointError) Error() string {
	return fmt.Sprintf("cannot reach %s: %s: %v", e.Endpoint, e.Problem, e.Err)
}

func (e *EndpointError) Unwrap() error { return e.Err }

// RetriesExhaustedError is a request still failing transiently when its
// time budget (or its attempts, when bounded) ran out.
type RetriesExhaustedError struct {
	Method, URL string
	Attempts    int
	Elapsed     time.Duration
	// Budget is the time the request was allowed to retry for.
	Budget time.Duration
	// Last is the last failure: its status, or the connection error.
	Last string
}

func (e *RetriesExhaustedError) Error() string {
	return fmt.Sprintf("still failing after %d attempts over %s (last: %s); "+
		"the provider retries a request for %s at most: try again later, or check the API's status and quotas",
		e.Attempts, e.Elapsed.Round(100*time.Millisecond), e.Last, e.Budget)
}

// RoundTrip implements http.RoundTripper: it makes attempts (attempt) and,
// after each that failed, decides whether to make another (decide).
func (t *RetryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := replayableBody(req)
	if err != nil {
		return nil, err
	}
	p := t.policy()
	ctx := req.Context()
	start := p.now()
	backoff := p.initial
	for attempt := 1; ; attempt++ {
		bound := min(p.attemptTimeout, max(p.maxElapsed-p.now().Sub(start), time.Millisecond))
		r, err := t.attempt(req, body, bound, p.now)
		if err != nil {
			return nil, err
		}
		next, final := p.decide(req, r, attempt, p.now().Sub(start), backoff)
		if final != nil || !r.retry {
			if final == nil {
				if rec := retryRecordOf(ctx); rec != nil && r.resp != nil {
					// Tell the caller which attempt this answer is to: a
					// 409 to a repeated create means its first attempt
					// created the object.
					rec.answered(attempt)
				}
				return r.resp, r.err
			}
			if r.resp != nil {
				drain(r.resp)
			}
			return nil, final
		}
		if r.resp != nil {
			drain(r.resp)
		}
		tflog.Debug(ctx, "Retrying a Google API request", map[string]any{
			"method": req.Method, "path": req.URL.Path, "attempt": attempt, "reason": r.why, "wait": next.String(),
		})
		if err := p.sleep(ctx, next); err != nil {
			return nil, fmt.Errorf("stopped while waiting to retry (attempt %d: %s): %w", attempt, r.why, err)
		}
		backoff = min(backoff*2, p.maxBackoff)
	}
}

func drain(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	_ = resp.Body.Close()
}

// redactedURL is the request's URL without its query (which may carry
// keys or page tokens).
func redactedURL(req *http.Request) string {
	u := *req.URL
	u.RawQuery, u.User = "", nil
	return u.String()
}

func replayableBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	b, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	return b, err
}

// endpointError classifies the errors that retrying does not cure: a
// refused connection, a name that does not resolve, a certificate that
// does not verify.
func endpointError(req *http.Request, err error) *EndpointError {
	if err == nil {
		return nil
	}
	endpoint := req.URL.Scheme + "://" + req.URL.Host
	var dnsErr *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return &EndpointError{Endpoint: endpoint, Problem: "the connection was refused (nothing listens there): check the API endpoint the provider is configured with", Err: err}
	case errors.As(err, &dnsErr) && !dnsErr.IsTemporary:
		return &EndpointError{Endpoint: endpoint, Problem: "the host name does not resolve: check the API endpoint the provider is configured with, and DNS", Err: err}
	case errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid), errors.As(err, &verify):
		return &EndpointError{Endpoint: endpoint, Problem: "its TLS certificate does not verify: check the endpoint, and the CA bundle the system trusts", Err: err}
	case errors.As(err, &record):
		return &EndpointError{Endpoint: endpoint, Problem: "it does not speak TLS: check the endpoint's scheme and port", Err: err}
	}
	return nil
}

// idempotent methods may be sent twice with the effect of once.
func idempotent(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// shouldRetry says whether a response or error is transient, and why.
func shouldRetry(method string, resp *http.Response, err error) (bool, string) {
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return false, ""
		}
		var opErr *net.OpError
		if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
			errors.As(err, &opErr) || strings.Contains(err.Error(), "connection reset") {
			return true, "connection error: " + err.Error()
		}
		return false, ""
	}
	status := strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode)
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		if isQuotaExhausted(resp) {
			return false, ""
		}
		return true, "429 rate limited"
	case http.StatusServiceUnavailable:
		return true, status
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return idempotent(method), status
	}
	return false, ""
}

// isQuotaExhausted peeks at a 429 body for a quota reason code, and leaves
// the body readable for the caller. It decides by the reason codes only:
// Google's per-minute rate limits say "Quota exceeded for quota metric
// ... per minute" in their message but carry reason rateLimitExceeded, and
// waiting does help those.
func isQuotaExhausted(resp *http.Response) bool {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	s := strings.ToLower(string(b))
	for _, rate := range []string{"ratelimitexceeded", "userratelimitexceeded", "rate_limit_exceeded"} {
		if strings.Contains(s, `"`+rate+`"`) {
			return false
		}
	}
	return strings.Contains(s, `"quotaexceeded"`) || strings.Contains(s, `"quota_exceeded"`)
}

func retryAfter(resp *http.Response) time.Duration {
	if resp == nil {
		return 0
	}
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
		return time.Duration(secs) * time.Second
	}
	return 0
}
