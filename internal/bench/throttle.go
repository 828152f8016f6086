package bench

import (
	"context"
	"net/url"
	"sync"
	"time"

	"k8s.io/client-go/tools/metrics"
)

// throttledAfter is the rate limiter wait that counts as throttling: a
// token that is there is taken in microseconds, so a wait this long is the
// token bucket making the request wait (or a request that lost its core).
const throttledAfter = 10 * time.Millisecond

// rateLimiterWaits records client-go's rate limiter latency metric: how
// long each Kubernetes request of this process waited on its client's
// token bucket before it was sent.
type rateLimiterWaits struct {
	mu        sync.Mutex
	requests  int
	throttled int
	longest   time.Duration
}

func (w *rateLimiterWaits) Observe(_ context.Context, _ string, _ url.URL, latency time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.requests++
	w.longest = max(w.longest, latency)
	if latency >= throttledAfter {
		w.throttled++
	}
}

// take returns what was recorded since the last call and starts afresh.
func (w *rateLimiterWaits) take() ClientThrottling {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := ClientThrottling{Requests: w.requests, Throttled: w.throttled, LongestWaitMs: ms(w.longest)}
	w.requests, w.throttled, w.longest = 0, 0, 0
	return out
}

var (
	waits         = &rateLimiterWaits{}
	registerWaits sync.Once
)

// clientWaits registers the recorder with client-go (once per process:
// client-go takes the first registration only) and returns it.
func clientWaits() *rateLimiterWaits {
	registerWaits.Do(func() { metrics.Register(metrics.RegisterOpts{RateLimiterLatency: waits}) })
	return waits
}

// ClientThrottling is what client-go's rate limiters did to the
// Kubernetes requests of this process (the in-process provider's, and the
// sandbox's emulators') during the profiled plan.
type ClientThrottling struct {
	// Requests is how many requests went through a rate limiter.
	Requests int `json:"requests"`
	// Throttled is how many of them waited throttledAfter or more.
	Throttled     int     `json:"throttled"`
	LongestWaitMs float64 `json:"longestWaitMs"`
}
