package clients

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// scriptedServer answers attempt i (from 1) with answer(i, request body).
func scriptedServer(t *testing.T, answer func(attempt int, r *http.Request, body []byte, w http.ResponseWriter)) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var attempts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("server: reading body: %v", err)
		}
		answer(int(attempts.Add(1)), r, body, w)
	}))
	t.Cleanup(srv.Close)
	return srv, &attempts
}

func googleError(w http.ResponseWriter, code int, reason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = fmt.Fprintf(w, `{"error":{"code":%d,"message":%q,"errors":[{"message":%q,"domain":"usageLimits","reason":%q}]}}`, code, message, message, reason)
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the response body: %v", err)
	}
	return string(b)
}

func TestRetryTransportRetriesTransientAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		status int
		reason string
	}{
		{"503", http.StatusServiceUnavailable, "backendError"},
		{"502", http.StatusBadGateway, "backendError"},
		{"500", http.StatusInternalServerError, "internalError"},
		{"429 rate limit", http.StatusTooManyRequests, "rateLimitExceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, attempts := scriptedServer(t, func(attempt int, _ *http.Request, _ []byte, w http.ResponseWriter) {
				if attempt < 3 {
					googleError(w, tc.status, tc.reason, "try again")
					return
				}
				_, _ = io.WriteString(w, `{"ok":true}`)
			})
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/compute/v1/projects/p", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := fastRetry(newFakeClock()).RoundTrip(req)
			if err != nil {
				t.Fatalf("RoundTrip: %v", err)
			}
			if resp.StatusCode != http.StatusOK {
				t.Errorf("status = %d, want 200 after retries", resp.StatusCode)
			}
			if got := readBody(t, resp); got != `{"ok":true}` {
				t.Errorf("body = %q, want the successful answer's", got)
			}
			if got := attempts.Load(); got != 3 {
				t.Errorf("attempts = %d, want 3", got)
			}
		})
	}
}

func TestRetryTransportReplaysTheBody(t *testing.T) {
	t.Parallel()
	want := map[string]any{"name": "wp", "workloadPolicy": map[string]any{"type": "HIGH_THROUGHPUT"}}
	var mu sync.Mutex
	var bodies []string
	srv, attempts := scriptedServer(t, func(attempt int, r *http.Request, body []byte, w http.ResponseWriter) {
		mu.Lock()
		bodies = append(bodies, string(body))
		mu.Unlock()
		var got map[string]any
		if err := json.Unmarshal(body, &got); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			googleError(w, http.StatusBadRequest, "invalid", fmt.Sprintf("attempt %d: body %q", attempt, body))
			return
		}
		if r.ContentLength != int64(len(body)) {
			googleError(w, http.StatusBadRequest, "invalid", fmt.Sprintf("Content-Length %d for %d bytes", r.ContentLength, len(body)))
			return
		}
		if attempt < 4 {
			googleError(w, http.StatusServiceUnavailable, "backendError", "busy")
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	b, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+"/resourcePolicies", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	// Without GetBody, net/http cannot rewind the body on its own: the
	// replay is the RetryTransport's.
	req.GetBody = nil
	resp, err := (&http.Client{Transport: fastRetry(newFakeClock())}).Do(req)
	if err != nil {
		t.Fatalf("Do: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status = %d (%s), want 200", resp.StatusCode, readBody(t, resp))
	}
	_ = resp.Body.Close()
	if got := attempts.Load(); got != 4 {
		t.Errorf("attempts = %d, want 4", got)
	}
	mu.Lock()
	defer mu.Unlock()
	for i, got := range bodies {
		if got != string(b) {
			t.Errorf("attempt %d sent body %q, want %q", i+1, got, b)
		}
	}
}

func TestRetryTransportDoesNotRetry(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		status   int
		reason   string
		wantBody string
	}{
		{"429 quota exceeded", http.StatusTooManyRequests, "quotaExceeded", `"reason":"quotaExceeded"`},
		{"400", http.StatusBadRequest, "invalid", "bad request"},
		{"404", http.StatusNotFound, "notFound", "bad request"},
		{"403", http.StatusForbidden, "forbidden", "bad request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, attempts := scriptedServer(t, func(_ int, _ *http.Request, _ []byte, w http.ResponseWriter) {
				googleError(w, tc.status, tc.reason, "bad request")
			})
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := fastRetry(newFakeClock()).RoundTrip(req)
			if err != nil {
				t.Fatalf("RoundTrip: %v", err)
			}
			if resp.StatusCode != tc.status {
				t.Errorf("status = %d, want %d", resp.StatusCode, tc.status)
			}
			if body := readBody(t, resp); !strings.Contains(body, tc.wantBody) {
				t.Errorf("the caller reads body %q, want it to contain %q", body, tc.wantBody)
			}
			if got := attempts.Load(); got != 1 {
				t.Errorf("attempts = %d, want 1", got)
			}
		})
	}
}

func TestRetryTransportQuotaSpellings(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"error":{"errors":[{"reason":"quotaExceeded"}]}}`,
		`{"error":{"status":"RESOURCE_EXHAUSTED","details":[{"reason":"QUOTA_EXCEEDED"}]}}`,
	} {
		resp := &http.Response{StatusCode: http.StatusTooManyRequests, Body: io.NopCloser(strings.NewReader(body)), Header: http.Header{}}
		if retry, _ := shouldRetry(http.MethodGet, resp, nil); retry {
			t.Errorf("a 429 with body %s is retried; waiting does not refill a quota", body)
		}
		if got, _ := io.ReadAll(resp.Body); string(got) != body {
			t.Errorf("after the peek the body reads %q, want %q", got, body)
		}
	}
}

func TestRetryTransportMaxAttempts(t *testing.T) {
	t.Parallel()
	srv, attempts := scriptedServer(t, func(attempt int, _ *http.Request, _ []byte, w http.ResponseWriter) {
		googleError(w, http.StatusServiceUnavailable, "backendError", fmt.Sprintf("still down (attempt %d)", attempt))
	})
	rt := fastRetry(newFakeClock())
	rt.MaxAttempts = 3
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/compute/v1/x?pageToken=secret", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rt.RoundTrip(req)
	if resp != nil {
		_ = resp.Body.Close()
		t.Fatalf("got a %d response, want an error saying the retries ran out", resp.StatusCode)
	}
	var exhausted *RetriesExhaustedError
	if !errors.As(err, &exhausted) || exhausted.Attempts != 3 || !strings.Contains(err.Error(), "still failing after 3 attempts") ||
		!strings.Contains(err.Error(), "503 Service Unavailable") {
		t.Errorf("err = %v, want a RetriesExhaustedError of 3 attempts naming the last 503", err)
	}
	if exhausted != nil && strings.Contains(exhausted.URL, "secret") {
		t.Errorf("the error's URL %q keeps the query", exhausted.URL)
	}
	if got := attempts.Load(); got != 3 {
		t.Errorf("attempts = %d, want MaxAttempts = 3", got)
	}
}

// TestRetryTransportMaxElapsed: no wait is begun that would end past
// MaxElapsed, whatever Retry-After asks.
func TestRetryTransportMaxElapsed(t *testing.T) {
	t.Parallel()
	srv, attempts := scriptedServer(t, func(_ int, _ *http.Request, _ []byte, w http.ResponseWriter) {
		w.Header().Set("Retry-After", "30")
		googleError(w, http.StatusTooManyRequests, "rateLimitExceeded", "slow down")
	})
	clock := newFakeClock()
	rt := fastRetry(clock)
	rt.MaxAttempts, rt.MaxElapsed = 100, 5*time.Second
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rt.RoundTrip(req)
	var exhausted *RetriesExhaustedError
	if !errors.As(err, &exhausted) || exhausted.Attempts != 1 {
		t.Errorf("err = %v, want a RetriesExhaustedError after 1 attempt (a 30s Retry-After does not fit in 5s)", err)
	}
	if waits := clock.Waits(); len(waits) != 0 {
		t.Errorf("waits = %v: it began a wait past the budget instead of giving up", waits)
	}
	if got := attempts.Load(); got != 1 {
		t.Errorf("attempts = %d, want 1", got)
	}
}

// TestRetryTransportRetriesPostsOnlyWhenUnapplied: a POST is retried on
// 429 and 503 (and dropped connections; a create answered 409 on the
// retry is adopted), never on 500, 502 or 504, which may come after the
// create was applied.
func TestRetryTransportRetriesPostsOnlyWhenUnapplied(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status    int
		wantTries int32
	}{
		{http.StatusServiceUnavailable, 2}, {http.StatusTooManyRequests, 2},
		{http.StatusInternalServerError, 1}, {http.StatusBadGateway, 1}, {http.StatusGatewayTimeout, 1},
	} {
		t.Run(strconv.Itoa(tc.status), func(t *testing.T) {
			t.Parallel()
			srv, attempts := scriptedServer(t, func(attempt int, _ *http.Request, _ []byte, w http.ResponseWriter) {
				if attempt == 1 {
					googleError(w, tc.status, "backendError", "hiccup")
					return
				}
				w.WriteHeader(http.StatusOK)
			})
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, strings.NewReader(`{"name":"p"}`))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := fastRetry(newFakeClock()).RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if got := attempts.Load(); got != tc.wantTries {
				t.Errorf("POST answered %d: %d attempts, want %d", tc.status, got, tc.wantTries)
			}
		})
	}
}

// TestRetryTransportLeavesTheRequestAlone: the caller's request (its
// body, headers and URL) is what it was after RoundTrip, retries or not.
func TestRetryTransportLeavesTheRequestAlone(t *testing.T) {
	t.Parallel()
	srv, _ := scriptedServer(t, func(attempt int, _ *http.Request, _ []byte, w http.ResponseWriter) {
		if attempt < 3 {
			googleError(w, http.StatusServiceUnavailable, "backendError", "busy")
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	body := io.NopCloser(strings.NewReader(`{"a":1}`))
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, srv.URL+"/x", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Caller", "1")
	rt := fastRetry(newFakeClock())
	base := rt.Base
	rt.Base = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r == req {
			t.Error("the caller's request was sent itself, not a clone")
		}
		r.Header.Set("X-Caller", "changed by a lower transport")
		return base.RoundTrip(r)
	})
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if req.Body != body {
		t.Error("RoundTrip replaced the caller's request body")
	}
	if got := req.Header.Get("X-Caller"); got != "1" {
		t.Errorf("the caller's header reads %q after RoundTrip", got)
	}
}

// TestRetryTransportFailsFastOnTheEndpoint: a refused connection, a name
// that does not resolve and a certificate that does not verify fail on
// the first attempt, naming the endpoint.
func TestRetryTransportFailsFastOnTheEndpoint(t *testing.T) {
	t.Parallel()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	t.Cleanup(tlsSrv.Close)
	closed := httptest.NewServer(http.NotFoundHandler())
	refusedURL := closed.URL
	closed.Close()
	plain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plain.Close)
	for _, tc := range []struct {
		name, url, want string
	}{
		{"refused", refusedURL, "connection was refused"},
		{"unresolvable", "https://compute.does-not-exist.invalid", "does not resolve"},
		{"unknown CA", tlsSrv.URL, "TLS certificate does not verify"},
		{"not TLS", strings.Replace(plain.URL, "http://", "https://", 1), "does not speak TLS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tries := 0
			clock := newFakeClock()
			rt := clock.drive(NewRetryTransport(nil))
			base := rt.Base
			rt.Base = roundTripFunc(func(r *http.Request) (*http.Response, error) {
				tries++
				return base.RoundTrip(r)
			})
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, tc.url+"/compute/v1/projects/p", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := rt.RoundTrip(req)
			if resp != nil {
				_ = resp.Body.Close()
			}
			var ee *EndpointError
			if !errors.As(err, &ee) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), strings.TrimSuffix(tc.url, "/")) {
				t.Errorf("err = %v, want an EndpointError naming %s: %s", err, tc.url, tc.want)
			}
			// At once: one attempt, and no wait begun.
			if waits := clock.Waits(); tries != 1 || len(waits) != 0 {
				t.Errorf("%d attempts and waits %v, want 1 attempt and no wait", tries, waits)
			}
		})
	}
}

func TestRetryTransportHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	t.Run("waits as long as asked", func(t *testing.T) {
		t.Parallel()
		srv, attempts := scriptedServer(t, func(attempt int, _ *http.Request, _ []byte, w http.ResponseWriter) {
			if attempt == 1 {
				w.Header().Set("Retry-After", "1")
				googleError(w, http.StatusTooManyRequests, "rateLimitExceeded", "slow down")
				return
			}
			w.WriteHeader(http.StatusOK)
		})
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		clock := newFakeClock()
		resp, err := fastRetry(clock).RoundTrip(req)
		if err != nil {
			t.Fatalf("RoundTrip: %v", err)
		}
		_ = resp.Body.Close()
		if got := attempts.Load(); got != 2 {
			t.Fatalf("attempts = %d, want 2", got)
		}
		if waits := clock.Waits(); !slices.Equal(waits, []time.Duration{time.Second}) {
			t.Errorf("waits = %v, want the 1s of Retry-After (the backoff is only milliseconds)", waits)
		}
	})
	t.Run("the deadline ends a wait it asks for", func(t *testing.T) {
		t.Parallel()
		srv, attempts := scriptedServer(t, func(_ int, _ *http.Request, _ []byte, w http.ResponseWriter) {
			w.Header().Set("Retry-After", "30")
			googleError(w, http.StatusServiceUnavailable, "backendError", "maintenance")
		})
		clock := newFakeClock()
		const deadline = 100 * time.Millisecond
		req, err := http.NewRequestWithContext(clock.withDeadline(t, deadline), http.MethodGet, srv.URL, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := fastRetry(clock).RoundTrip(req)
		if resp != nil {
			_ = resp.Body.Close()
			t.Errorf("got a %d response, want none", resp.StatusCode)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want one wrapping context.DeadlineExceeded", err)
		}
		testsupport.WantContains(t, err, "stopped while waiting to retry (attempt 1: 503")
		if got := attempts.Load(); got != 1 {
			t.Errorf("attempts = %d, want 1: Retry-After (30s) is longer than the deadline", got)
		}
		// The request ended at its deadline, in the 30 s wait it began.
		if waits, took := clock.Waits(), clock.Elapsed(); !slices.Equal(waits, []time.Duration{30 * time.Second}) || took != deadline {
			t.Errorf("waits %v, ended after %s on the clock: want the 30s wait begun, and ended by the %s deadline", waits, took, deadline)
		}
	})
}

// A request whose deadline comes while it waits to retry stops then,
// naming the failure it was waiting to retry.
func TestRetryTransportStopsAtTheDeadline(t *testing.T) {
	t.Parallel()
	srv, attempts := scriptedServer(t, func(_ int, _ *http.Request, _ []byte, w http.ResponseWriter) {
		googleError(w, http.StatusServiceUnavailable, "backendError", "down")
	})
	clock := newFakeClock()
	rt := clock.drive(&RetryTransport{Base: http.DefaultTransport, Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond, MaxAttempts: 1000})
	const deadline = 150 * time.Millisecond
	req, err := http.NewRequestWithContext(clock.withDeadline(t, deadline), http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: rt}).Do(req)
	if resp != nil {
		_ = resp.Body.Close()
		t.Fatalf("got a %d response, want an error", resp.StatusCode)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v, want one wrapping context.DeadlineExceeded", err)
	}
	n := int(attempts.Load())
	testsupport.WantContains(t, err, fmt.Sprintf("stopped while waiting to retry (attempt %d: 503 Service Unavailable)", n))
	// Each attempt was followed by a wait; the deadline came in the last.
	waits := clock.Waits()
	if len(waits) != n || n < 2 {
		t.Fatalf("%d attempts and %d waits (%v), want a wait after each of several attempts", n, len(waits), waits)
	}
	if before := sum(waits[:n-1]); before >= deadline || before+waits[n-1] < deadline || clock.Elapsed() != deadline {
		t.Errorf("waits %v: want every one but the last to end before the %s deadline, and the request to end at it (%s on the clock)",
			waits, deadline, clock.Elapsed())
	}
}

func TestRetryTransportStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	srv, attempts := scriptedServer(t, func(attempt int, _ *http.Request, _ []byte, w http.ResponseWriter) {
		if attempt == 2 {
			cancel()
		}
		googleError(w, http.StatusServiceUnavailable, "backendError", "down")
	})
	rt := fastRetry(newFakeClock())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rt.RoundTrip(req)
	if resp != nil {
		_ = resp.Body.Close()
		t.Fatalf("got a %d response, want an error", resp.StatusCode)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want one wrapping context.Canceled", err)
	}
	if got := attempts.Load(); got != 2 {
		t.Errorf("attempts = %d, want 2 (cancelled during the second)", got)
	}
}

// roundTripFunc is an http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestRetryTransportConnectionErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		err       error
		wantTries int
	}{
		{"connection reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, 3},
		{"connection refused", fmt.Errorf("dial: %w", syscall.ECONNREFUSED), 1},
		{"unexpected EOF", fmt.Errorf("reading response: %w", io.ErrUnexpectedEOF), 3},
		{"reset in the text only", errors.New("http2: stream error: connection reset"), 3},
		{"not transient", errors.New("x509: certificate signed by unknown authority"), 1},
		{"context cancelled", fmt.Errorf("request: %w", context.Canceled), 1},
		{"deadline", fmt.Errorf("request: %w", context.DeadlineExceeded), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tries := 0
			rt := fastRetry(newFakeClock())
			rt.Base = roundTripFunc(func(*http.Request) (*http.Response, error) {
				tries++
				if tries < 3 {
					return nil, tc.err
				}
				return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("ok")), Header: http.Header{}}, nil
			})
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "http://compute.invalid/", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := rt.RoundTrip(req)
			if tries != tc.wantTries {
				t.Errorf("tries = %d, want %d", tries, tc.wantTries)
			}
			if tc.wantTries == 1 {
				if !errors.Is(err, tc.err) {
					t.Errorf("err = %v, want %v unchanged", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("RoundTrip: %v", err)
			}
			_ = resp.Body.Close()
		})
	}
}

func TestRetryTransportReadBodyError(t *testing.T) {
	t.Parallel()
	called := false
	rt := fastRetry(newFakeClock())
	rt.Base = roundTripFunc(func(*http.Request) (*http.Response, error) {
		called = true
		return nil, errors.New("must not be called")
	})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://compute.invalid/", io.NopCloser(errReader{}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.RoundTrip(req); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("err = %v, want the body's read error", err)
	}
	if called {
		t.Error("the request was sent without its body")
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestNewRetryTransportDefaults(t *testing.T) {
	t.Parallel()
	rt := NewRetryTransport(nil)
	if rt.Base != http.DefaultTransport {
		t.Errorf("Base = %v, want http.DefaultTransport", rt.Base)
	}
	if rt.Initial != DefaultRetryInitial || rt.Max != DefaultRetryMax || rt.MaxAttempts != 0 || rt.MaxElapsed != DefaultMaxElapsed ||
		rt.AttemptTimeout != DefaultRequestTimeout || rt.Now != nil || rt.Sleep != nil {
		t.Errorf("Initial, Max, MaxAttempts, MaxElapsed, AttemptTimeout = %s, %s, %d, %s, %s (clock set: %v): want the default backoffs, no bound on attempts, the default budget and request timeout, and the real clock",
			rt.Initial, rt.Max, rt.MaxAttempts, rt.MaxElapsed, rt.AttemptTimeout, rt.Now != nil || rt.Sleep != nil)
	}
	base := roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, errors.New("x") })
	if got := NewRetryTransport(base); got.Base == nil {
		t.Error("NewRetryTransport(base) dropped base")
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	for value, want := range map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"0":                             0,
		"-2":                            0,
		"Wed, 21 Oct 2015 07:28:00 GMT": 0,
	} {
		resp := &http.Response{Header: http.Header{}}
		if value != "" {
			resp.Header.Set("Retry-After", value)
		}
		if got := retryAfter(resp); got != want {
			t.Errorf("retryAfter(%q) = %s, want %s", value, got, want)
		}
	}
	if got := retryAfter(nil); got != 0 {
		t.Errorf("retryAfter(nil) = %s, want 0", got)
	}
}

// Google's per-minute rate limits read "Quota exceeded for quota metric"
// but carry reason rateLimitExceeded: they are retried. A real quota
// (reason quotaExceeded) is not.
func TestRetryTransportRateLimitReadsLikeQuota(t *testing.T) {
	t.Parallel()
	for reason, wantAttempts := range map[string]int32{"rateLimitExceeded": 3, "quotaExceeded": 1} {
		t.Run(reason, func(t *testing.T) {
			t.Parallel()
			srv, attempts := scriptedServer(t, func(attempt int, _ *http.Request, _ []byte, w http.ResponseWriter) {
				if attempt < 3 {
					w.WriteHeader(http.StatusTooManyRequests)
					_, _ = w.Write([]byte(`{"error":{"code":429,"message":"Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute'","errors":[{"reason":"` + reason + `"}]}}`))
					return
				}
				w.WriteHeader(http.StatusOK)
			})
			resp, err := (&http.Client{Transport: fastRetry(newFakeClock())}).Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			if got := attempts.Load(); got != wantAttempts {
				t.Errorf("reason %s: %d attempts, want %d", reason, got, wantAttempts)
			}
		})
	}
}

// The backoff starts at Initial and doubles up to Max, each wait drawn
// between half the backoff and the whole of it; zero bounds take the
// defaults.
func TestRetryTransportBackoff(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		initial, max time.Duration
		want         []time.Duration // the backoff before each retry
	}{
		"doubling up to Max": {100 * time.Millisecond, 400 * time.Millisecond,
			[]time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 400 * time.Millisecond, 400 * time.Millisecond}},
		"defaults": {0, 0, []time.Duration{200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond,
			3200 * time.Millisecond, 6400 * time.Millisecond, 10 * time.Second, 10 * time.Second}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			retries := len(tc.want)
			srv, _ := scriptedServer(t, func(attempt int, _ *http.Request, _ []byte, w http.ResponseWriter) {
				if attempt <= retries {
					googleError(w, http.StatusServiceUnavailable, "backendError", "busy")
					return
				}
				w.WriteHeader(http.StatusOK)
			})
			clock := newFakeClock()
			rt := clock.drive(&RetryTransport{Base: http.DefaultTransport, Initial: tc.initial, Max: tc.max})
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = resp.Body.Close()
			waits := clock.Waits()
			if len(waits) != retries {
				t.Fatalf("waits = %v, want %d", waits, retries)
			}
			for i, w := range waits {
				if b := tc.want[i]; w < b/2 || w > b {
					t.Errorf("wait %d is %s, want between %s and %s (waits %v)", i+1, w, b/2, b, waits)
				}
			}
		})
	}
}

// The real clock's wait ends when its context does, or after d.
func TestSleep(t *testing.T) {
	t.Parallel()
	if err := sleep(t.Context(), time.Nanosecond); err != nil {
		t.Errorf("sleep(1ns) = %v, want nil", err)
	}
	ended, cancel := context.WithDeadline(t.Context(), time.Unix(0, 0))
	defer cancel()
	if err := sleep(ended, time.Hour); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("an hour's sleep in a context past its deadline = %v, want context.DeadlineExceeded at once", err)
	}
}
