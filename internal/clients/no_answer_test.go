package clients

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// silentServer takes every request and answers none of them until the
// client goes away, except the attempts answer says to answer (from 1).
func silentServer(t *testing.T, answer func(attempt int) bool) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var attempts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if answer != nil && answer(int(attempts.Add(1))) {
			_, _ = io.WriteString(w, `{"ok":true}`)
			return
		}
		if answer == nil {
			attempts.Add(1)
		}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv, &attempts
}

func TestRetryTransportRetriesNoAnswerAndFailsNamingTheEndpoint(t *testing.T) {
	t.Parallel()
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			srv, attempts := silentServer(t, nil)
			rt := fastRetry(newFakeClock())
			rt.AttemptTimeout, rt.MaxAttempts = 50*time.Millisecond, 3
			req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+"/v1/projects/p/locations/l/clusters/c/nodePools", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := rt.RoundTrip(req)
			if resp != nil {
				_ = resp.Body.Close()
				t.Fatalf("got an answer (%s), want none", resp.Status)
			}
			var na *NoAnswerError
			if !errors.As(err, &na) || !errors.Is(err, kernel.ErrNoAnswer) {
				t.Fatalf("err = %v (%T), want a NoAnswerError that is an kernel.ErrNoAnswer", err, err)
			}
			testsupport.WantContains(t, err, "no answer from "+srv.URL+" in 50ms (3 attempts over", "compute_endpoint, container_endpoint", "request_timeout")
			if got := attempts.Load(); got != 3 || na.Attempts != 3 {
				t.Errorf("the server saw %d attempts and the error says %d, want 3 (a no-answer is retried, POST included)", got, na.Attempts)
			}
		})
	}
}

// A no-answer is retried only while a whole further attempt fits in the
// budget, so the request ends within it.
func TestRetryTransportNoAnswerStaysWithinTheBudget(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	const timeout, budget = 200 * time.Millisecond, 500 * time.Millisecond
	base, attempts := hangingEndpoint(clock, timeout)
	rt := fastRetry(clock)
	rt.Base, rt.AttemptTimeout, rt.MaxElapsed, rt.MaxAttempts = base, timeout, budget, 8
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "https://compute.example/compute/v1/projects/p", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rt.RoundTrip(req)
	var na *NoAnswerError
	if !errors.As(err, &na) {
		t.Fatalf("err = %v, want a NoAnswerError", err)
	}
	// Two attempts of 200ms fit in 500ms; a third could not end within it.
	if got := attempts.Load(); got != 2 || na.Attempts != 2 || len(clock.Waits()) != 1 {
		t.Errorf("the endpoint saw %d attempts and the error says %d, with waits %v: want 2 attempts and a wait between them",
			got, na.Attempts, clock.Waits())
	}
	if na.Elapsed != clock.Elapsed() || na.Elapsed > budget || na.Elapsed+timeout <= budget {
		t.Errorf("gave up after %s (%s on the clock), want within the %s budget, with no room left for another %s attempt",
			na.Elapsed, clock.Elapsed(), budget, timeout)
	}
}

// A retry after a no-answer that gets an answer returns it, recorded as the
// answer to a repeated request (a 409 then means the first create was
// applied).
func TestRetryTransportAnswerAfterNoAnswer(t *testing.T) {
	t.Parallel()
	srv, attempts := silentServer(t, func(attempt int) bool { return attempt == 2 })
	rt := fastRetry(newFakeClock())
	rt.AttemptTimeout = 50 * time.Millisecond
	ctx, rec := withRetryRecord(t.Context())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/x", strings.NewReader(`{"name":"p"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if body := readBody(t, resp); body != `{"ok":true}` || rec.answeredAttempt() != 2 || attempts.Load() != 2 {
		t.Errorf("body %q, recorded as attempt %d after %d attempts: want the second attempt's answer, recorded as attempt 2",
			body, rec.answeredAttempt(), attempts.Load())
	}
}

// The bound is on the headers only: the body of an answer that came in
// time is read however long it takes, as a watch's events are. The server
// sends the rest of the body only once the attempt's bound is long past.
func TestRequestTimeoutDoesNotCutTheBody(t *testing.T) {
	t.Parallel()
	const timeout = 20 * time.Millisecond
	google := NewRetryTransport(nil)
	google.AttemptTimeout = timeout
	for name, rt := range map[string]http.RoundTripper{
		"google":     google,
		"kubernetes": withHeaderTimeout(timeout)(http.DefaultTransport),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.WriteString(w, "first ")
				_ = http.NewResponseController(w).Flush()
				select {
				case <-release:
					_, _ = io.WriteString(w, "second")
				case <-r.Context().Done():
				}
			}))
			t.Cleanup(srv.Close)
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = resp.Body.Close() }()
			first := make([]byte, len("first "))
			if _, err := io.ReadFull(resp.Body, first); err != nil {
				t.Fatalf("reading the first part: %v", err)
			}
			outlast(t, 4*timeout)
			close(release)
			rest, err := io.ReadAll(resp.Body)
			if body := string(first) + string(rest); err != nil || body != "first second" {
				t.Errorf("body %q (%v), want the whole body", body, err)
			}
		})
	}
}

// outlast returns once an attempt bounded by d, begun now, has been cut
// for want of an answer: by then the bound of every attempt begun before
// with a shorter one has passed as well.
func outlast(t *testing.T, d time.Duration) {
	t.Helper()
	silent := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		<-r.Context().Done()
		return nil, r.Context().Err()
	})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "https://silent.example/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, noAnswer, _, err := answerWithin(silent, req, d, time.Now); !noAnswer {
		t.Fatalf("an attempt with no answer was not cut at its bound: %v", err)
	}
}

// silentListener takes connections and never reads or writes: a TLS
// handshake with it never ends.
func silentListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		<-done
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return "https://" + l.Addr().String()
}

// A Kubernetes host that takes the connection and never answers fails the
// inventory's first list with a ClusterAccessError naming the host, the
// request timeout and what to check, instead of holding it for minutes.
func TestKubernetes_NoAnswerFailsTheFirstList(t *testing.T) {
	t.Parallel()
	host := silentListener(t)
	set, err := New(context.Background(), Config{RequestTimeout: 100 * time.Millisecond,
		Kubernetes: &KubernetesConfig{Host: host, Token: "kube-token"}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(set.Compute(), set.GKE(), clusterread.ClusterRef{Unnamed: errors.New("no cluster named")}, set.Cluster, engine.Options{})
	t.Cleanup(e.Close)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, err = e.Cluster().ListPartitions(ctx, clusterread.PartitionFilter{})
	var access *clusterread.ClusterAccessError
	if !errors.As(err, &access) || !errors.Is(err, kernel.ErrNoAnswer) {
		t.Fatalf("ListPartitions = %v, want a ClusterAccessError for no answer", err)
	}
	testsupport.WantContains(t, err, "cannot read the cluster's", "at "+host, "no answer from "+host+" in 100ms", "kubernetes.host", "until it answers")
	t.Log(err)
	// Every later check fails at once with the same cause, rather than
	// waiting again.
	if v := e.Slices().PlanNewSlice(ctx, tpuslice.NewSlicePlan{}); v.Problem != tpuslice.ClusterUnreadable || !errors.As(v.Err, &access) {
		t.Errorf("PlanNewSlice = %+v, want the ClusterAccessError", v)
	}
}

// A TLS handshake that the transport's own timeout ends (10 s in Go's and
// client-go's transports) is a no-answer too: retried for Google, and for
// Kubernetes a NoAnswerError that is not a network timeout, which
// client-go would otherwise retry 10 times before an informer heard of it.
func TestTransportTimeoutIsNoAnswer(t *testing.T) {
	t.Parallel()
	host := silentListener(t)
	quickTLS := &http.Transport{TLSHandshakeTimeout: 50 * time.Millisecond}
	t.Cleanup(quickTLS.CloseIdleConnections)

	clock := newFakeClock()
	rt := fastRetry(clock)
	rt.Base, rt.AttemptTimeout, rt.MaxAttempts = quickTLS, time.Minute, 3
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, host+"/v1/x", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rt.RoundTrip(req)
	var na *NoAnswerError
	if !errors.As(err, &na) || na.Attempts != 3 || len(clock.Waits()) != 2 {
		t.Errorf("Google: %v after waits %v, want a NoAnswerError after 3 attempts", err, clock.Waits())
	}
	testsupport.WantContains(t, err, "no answer from "+host+" in ")

	req, err = http.NewRequestWithContext(t.Context(), http.MethodGet, host+"/api/v1/nodes", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = withHeaderTimeout(time.Minute)(quickTLS).RoundTrip(req)
	if !errors.As(err, &na) || isTimeout(err) {
		t.Errorf("Kubernetes: %v, want a NoAnswerError that is not a network timeout", err)
	}
	testsupport.WantContains(t, err, "no answer from "+host+" in ", "kubernetes.host")
}
