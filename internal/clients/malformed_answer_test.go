package clients

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
)

const (
	policyPath    = "/compute/v1/projects/p/regions/r/resourcePolicies/wp"
	nodePoolsPath = "/v1/projects/p/locations/l/clusters/c/nodePools"
	proxyPage     = "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>The proxy could not reach the upstream server.</p></body></html>"
)

// hostileAnswer writes one kind of answer no Google API gives.
type hostileAnswer struct {
	name string
	// write answers the request.
	write func(w http.ResponseWriter)
	// status, contentType and problem are what the error must name.
	status      int
	contentType string
	problem     string
}

var hostileAnswers = []hostileAnswer{
	{name: "cut JSON", status: 200, contentType: `"application/json; charset=UTF-8"`, problem: "the JSON is cut short",
		write: func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			_, _ = w.Write([]byte(`{"name":"wp","region":"r","workloadPolicy":{"type":"HIGH_`))
		}},
	{name: "proxy page", status: 502, contentType: `"text/html"`, problem: "the content type is not JSON, and the body is not JSON",
		write: func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte(proxyPage))
		}},
	{name: "empty 200", status: 200, contentType: "none", problem: "the body is empty",
		write: func(w http.ResponseWriter) {
			w.Header()["Content-Type"] = nil
			w.WriteHeader(http.StatusOK)
		}},
	{name: "JSON array", status: 200, contentType: `"application/json"`, problem: "the body is JSON but not an object",
		write: func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`[1,2,3]`))
		}},
	{name: "JSON of another shape", status: 200, contentType: `"application/json"`,
		problem: `the JSON object is of another shape: none of its keys ("data", "gateway") is a field of`,
		write: func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"gateway":"api-gw","data":{"name":"wp"}}`))
		}},
}

// A safe read that gets a malformed answer asks again, as after a 5xx: the
// third attempt's whole answer is handed on, read once, after two waits.
func TestMalformedAnswerToAReadIsRetried(t *testing.T) {
	t.Parallel()
	for _, h := range hostileAnswers {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			srv, attempts := scriptedServer(t, func(attempt int, _ *http.Request, _ []byte, w http.ResponseWriter) {
				if attempt <= 2 {
					h.write(w)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"name":"wp"}`))
			})
			clock := newFakeClock()
			rt := budgetRetry(clock, 10*time.Second)
			rt.Check = CheckGoogleAnswer
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+policyPath, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatalf("RoundTrip: %v after %d attempts, want the third attempt's answer", err, attempts.Load())
			}
			if body := readBody(t, resp); body != `{"name":"wp"}` || attempts.Load() != 3 || len(clock.Waits()) != 2 {
				t.Errorf("body %q after %d attempts and waits %v, want the policy after 3 attempts and 2 waits", body, attempts.Load(), clock.Waits())
			}
		})
	}
}

// A read that only ever gets a malformed answer fails within its budget
// with the answer named: API, method, host, status, content type, the
// body's first bytes, what was expected, what to check.
func TestMalformedAnswerToAReadFailsNamingIt(t *testing.T) {
	t.Parallel()
	for _, h := range hostileAnswers {
		t.Run(h.name, func(t *testing.T) {
			t.Parallel()
			srv, attempts := scriptedServer(t, func(_ int, _ *http.Request, _ []byte, w http.ResponseWriter) { h.write(w) })
			const budget = time.Second
			clock := newFakeClock()
			rt := budgetRetry(clock, budget)
			// Backoffs of 200 to 400 ms: no attempt starts later than
			// 800 ms into the budget, so each has 200 ms of the real
			// clock at least for its answer.
			rt.Initial, rt.Max = 400*time.Millisecond, 400*time.Millisecond
			rt.Check = CheckGoogleAnswer
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+policyPath+"?alt=json&key=SECRETKEY", nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := rt.RoundTrip(req)
			if resp != nil {
				_ = resp.Body.Close()
				t.Fatalf("got a %d answer, want an error", resp.StatusCode)
			}
			var bad *MalformedAnswerError
			if !errors.As(err, &bad) {
				t.Fatalf("err = %v, want a MalformedAnswerError", err)
			}
			if bad.Attempts != int(attempts.Load()) || bad.Attempts < 2 || sum(clock.Waits()) > budget {
				t.Errorf("%d attempts (error says %d), waits %v: want several attempts, all named, within %s", attempts.Load(), bad.Attempts, clock.Waits(), budget)
			}
			msg := err.Error()
			for _, want := range []string{"Compute API", "a GET", strings.TrimPrefix(srv.URL, "http://"), "HTTP " + strconv.Itoa(h.status),
				"content type " + h.contentType, h.problem, "expected a Compute resource policy", "compute_endpoint", "proxy"} {
				if !strings.Contains(msg, want) {
					t.Errorf("error %q does not say %q", msg, want)
				}
			}
			if strings.Contains(msg, "SECRETKEY") || strings.Contains(msg, "resourcePolicies/wp") {
				t.Errorf("error %q quotes the request's path or query", msg)
			}
		})
	}
}

// A change (a POST) that gets a malformed answer is not sent again: it may
// have been applied. The error says an operation was expected, of which
// API.
func TestMalformedAnswerToAChangeIsNotRetried(t *testing.T) {
	t.Parallel()
	for _, h := range hostileAnswers {
		for _, tc := range []struct{ path, api, setting string }{
			{"/compute/v1/projects/p/regions/r/resourcePolicies", "Compute", "compute_endpoint"},
			{nodePoolsPath, "GKE", "container_endpoint"},
		} {
			t.Run(h.name+" "+tc.api, func(t *testing.T) {
				t.Parallel()
				srv, attempts := scriptedServer(t, func(_ int, _ *http.Request, _ []byte, w http.ResponseWriter) { h.write(w) })
				clock := newFakeClock()
				rt := budgetRetry(clock, 10*time.Second)
				rt.Check = CheckGoogleAnswer
				req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+tc.path, strings.NewReader(`{"name":"x"}`))
				if err != nil {
					t.Fatal(err)
				}
				_, err = rt.RoundTrip(req)
				var bad *MalformedAnswerError
				if !errors.As(err, &bad) || attempts.Load() != 1 || len(clock.Waits()) != 0 {
					t.Fatalf("err = %v after %d attempts and waits %v, want a MalformedAnswerError after one attempt", err, attempts.Load(), clock.Waits())
				}
				for _, want := range []string{tc.api + " API", "a POST", "expected a " + tc.api + " operation", tc.setting} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not say %q", err, want)
					}
				}
			})
		}
	}
}

// Whole answers pass as they came, errors included: a JSON error body is
// the caller's to read (googleapi reads its message), at once.
func TestWholeAnswersPassTheCheck(t *testing.T) {
	t.Parallel()
	srv, attempts := scriptedServer(t, func(_ int, r *http.Request, _ []byte, w http.ResponseWriter) {
		switch r.URL.Path {
		case "/missing":
			googleError(w, http.StatusNotFound, "notFound", "The resource 'wp' was not found")
		case "/plain":
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_, _ = w.Write([]byte(` {"name":"wp"} `))
		case "/none":
			w.WriteHeader(http.StatusNoContent)
		}
	})
	for path, want := range map[string]string{
		"/missing": `{"error":{"code":404,"message":"The resource 'wp' was not found","errors":[{"message":"The resource 'wp' was not found","domain":"usageLimits","reason":"notFound"}]}}`,
		"/plain":   ` {"name":"wp"} `,
		"/none":    "",
	} {
		clock := newFakeClock()
		rt := budgetRetry(clock, 10*time.Second)
		rt.Check = CheckGoogleAnswer
		before := attempts.Load()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if body := readBody(t, resp); body != want || attempts.Load()-before != 1 {
			t.Errorf("%s: body %q after %d attempts, want %q after one", path, body, attempts.Load()-before, want)
		}
	}
}

// The error quotes a few bytes of the body, never a credential a proxy
// echoed in it, and never a header.
func TestMalformedAnswerQuotesNoSecret(t *testing.T) {
	t.Parallel()
	page := "<html><body><pre>GET /compute/v1 HTTP/1.1\nAuthorization: Bearer ya29.a0AfH6SMBx-very-secret\n" +
		"Cookie: token=abc123secret</pre>" + strings.Repeat("<p>padding</p>", 1000) + "</body></html>"
	srv, _ := scriptedServer(t, func(_ int, _ *http.Request, _ []byte, w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("X-Upstream-Token", "header-secret")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(page))
	})
	rt := budgetRetry(newFakeClock(), 10*time.Second)
	rt.Check = CheckGoogleAnswer
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+policyPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer ya29.request-secret")
	_, err = rt.RoundTrip(req)
	var bad *MalformedAnswerError
	if !errors.As(err, &bad) {
		t.Fatalf("err = %v, want a MalformedAnswerError", err)
	}
	for _, secret := range []string{"very-secret", "abc123secret", "header-secret", "request-secret", "padding</p><p>padding</p><p>padding"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error %q quotes %q", err, secret)
		}
	}
	if len(bad.Excerpt) > MaxExcerpt || !strings.Contains(bad.Excerpt, "Authorization: [masked]") {
		t.Errorf("excerpt %q: want at most %d bytes, the credential masked", bad.Excerpt, MaxExcerpt)
	}
}

// Through the Compute client the provider uses, a malformed answer to a
// read reaches the caller named, once the set's budget allows no retry
// (an hour's backoff, a minute's budget).
func TestComputeClientNamesAMalformedAnswer(t *testing.T) {
	t.Parallel()
	srv, attempts := scriptedServer(t, func(_ int, _ *http.Request, _ []byte, w http.ResponseWriter) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = w.Write([]byte(proxyPage))
	})
	set, err := New(t.Context(), Config{AccessToken: testToken, ComputeEndpoint: srv.URL + "/"},
		Options{RetryBudget: time.Minute, RetryInitial: time.Hour, RetryMax: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	policies, err := set.ResourcePolicies()
	if err != nil {
		t.Fatal(err)
	}
	_, err = policies.Get(t.Context(), &computepb.GetResourcePolicyRequest{Project: "p", Region: "r", ResourcePolicy: "wp"}, noRetry)
	var bad *MalformedAnswerError
	if !errors.As(err, &bad) || bad.Attempts != 1 || attempts.Load() != 1 {
		t.Fatalf("Get = %v after %d attempts, want a MalformedAnswerError after one (the first wait would pass the budget)", err, attempts.Load())
	}
	t.Logf("the caller reads: %v", err)
	for _, want := range []string{"Compute API", "HTTP 502 Bad Gateway", `content type "text/html"`, `"<html><head><title>502 Bad Gateway`,
		"expected a Compute resource policy", "compute_endpoint"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
