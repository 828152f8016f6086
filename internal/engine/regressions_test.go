package engine

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// Google's per-minute rate limits read "Quota exceeded for quota metric"
// but carry reason rateLimitExceeded: they are retried. A real quota
// (reason quotaExceeded) is not.
func TestRetryTransportRateLimitReadsLikeQuota(t *testing.T) {
	for reason, wantAttempts := range map[string]int32{"rateLimitExceeded": 3, "quotaExceeded": 1} {
		var attempts atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if attempts.Add(1) < 3 {
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(`{"error":{"code":429,"message":"Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute'","errors":[{"reason":"` + reason + `"}]}}`))
				return
			}
			w.WriteHeader(http.StatusOK)
		}))
		rt := &RetryTransport{Base: http.DefaultTransport, Initial: time.Millisecond, Max: 5 * time.Millisecond}
		resp, err := (&http.Client{Transport: rt}).Get(srv.URL)
		srv.Close()
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if got := attempts.Load(); got != wantAttempts {
			t.Errorf("reason %s: %d attempts, want %d", reason, got, wantAttempts)
		}
	}
}

func TestCanonicalNodePoolID(t *testing.T) {
	want := "projects/p/locations/l/clusters/c/nodePools/n"
	for _, in := range []string{want, "https://container.googleapis.com/v1/" + want} {
		if got, err := CanonicalNodePoolID(in); err != nil || got != want {
			t.Errorf("CanonicalNodePoolID(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := CanonicalNodePoolID("n"); err == nil {
		t.Error("a bare name was accepted")
	}
}

// A pool's partition state is the worst any of its nodes reports, however
// the nodes are ordered.
func TestViewNodesWorstState(t *testing.T) {
	healthy := node("a", map[string]string{"cloud.google.com/gke-tpu-partition-4x4x4-id": "p", "cloud.google.com/gke-tpu-partition-4x4x4-state": "HEALTHY"}, true)
	degraded := node("b", map[string]string{"cloud.google.com/gke-tpu-partition-4x4x4-id": "p", "cloud.google.com/gke-tpu-partition-4x4x4-state": "DEGRADED"}, true)
	for _, order := range [][]any{{healthy, degraded}, {degraded, healthy}} {
		if v := viewNodes(order); v.state != PartitionDegraded {
			t.Errorf("state %q, want DEGRADED", v.state)
		}
	}
}
