package clients

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
)

// RetryTransport retries transient failures of Google API requests: 429
// rate limits, 500, 502 and 503 answers and connection resets, with
// exponential backoff and jitter, for as long as the request's context
// allows. Quota exhaustion (a 429 whose reason is a quota) is not retried:
// waiting does not refill a quota. It never waits on operations; that is
// the engine's job.
type RetryTransport struct {
	Base http.RoundTripper
	// Initial and Max bound the backoff between attempts.
	Initial, Max time.Duration
	// MaxAttempts bounds the attempts; 0 means until the context ends.
	MaxAttempts int
}

// NewRetryTransport wraps base (http.DefaultTransport when nil).
func NewRetryTransport(base http.RoundTripper) *RetryTransport {
	if base == nil {
		base = http.DefaultTransport
	}
	return &RetryTransport{Base: base, Initial: 200 * time.Millisecond, Max: 10 * time.Second}
}

// RoundTrip implements http.RoundTripper.
func (t *RetryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := replayableBody(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	backoff := t.Initial
	for attempt := 1; ; attempt++ {
		if body != nil {
			req.Body = io.NopCloser(bytes.NewReader(body))
		}
		resp, err := t.Base.RoundTrip(req)
		retry, why := shouldRetry(resp, err)
		if !retry || (t.MaxAttempts > 0 && attempt >= t.MaxAttempts) {
			return resp, err
		}
		wait := backoff/2 + rand.N(backoff/2+1)
		if ra := retryAfter(resp); ra > wait {
			wait = ra
		}
		if resp != nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
			_ = resp.Body.Close()
		}
		tflog.Debug(ctx, "Retrying a Google API request", map[string]any{
			"method": req.Method, "path": req.URL.Path, "attempt": attempt, "reason": why, "wait": wait.String(),
		})
		select {
		case <-ctx.Done():
			if err == nil {
				err = errors.New(why)
			}
			return nil, errors.Join(ctx.Err(), err)
		case <-time.After(wait):
		}
		backoff = min(backoff*2, t.Max)
	}
}

func replayableBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	b, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	return b, err
}

// shouldRetry says whether a response or error is transient, and why.
func shouldRetry(resp *http.Response, err error) (bool, string) {
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return false, ""
		}
		var opErr *net.OpError
		if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, io.ErrUnexpectedEOF) ||
			errors.As(err, &opErr) || strings.Contains(err.Error(), "connection reset") {
			return true, "connection error: " + err.Error()
		}
		return false, ""
	}
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		if isQuotaExhausted(resp) {
			return false, ""
		}
		return true, "429 rate limited"
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusServiceUnavailable:
		return true, strconv.Itoa(resp.StatusCode) + " " + http.StatusText(resp.StatusCode)
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
