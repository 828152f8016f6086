package clients

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// budgetRetry is the provider's retry policy (no bound on attempts, a
// time budget) with short backoffs and the given budget.
func budgetRetry(budget time.Duration) *RetryTransport {
	rt := NewRetryTransport(nil)
	rt.Initial, rt.Max, rt.MaxElapsed = time.Millisecond, 20*time.Millisecond, budget
	return rt
}

// A safe request that keeps meeting 429 and 503 keeps retrying for as
// long as its budget allows: the 13th attempt, well past the 8 the
// provider used to stop at, is answered.
func TestRetryTransportRetriesWithinTheBudgetNotACount(t *testing.T) {
	t.Parallel()
	srv, attempts := scriptedServer(t, func(attempt int, _ *http.Request, _ []byte, w http.ResponseWriter) {
		switch {
		case attempt > 12:
			w.WriteHeader(http.StatusOK)
		case attempt%2 == 0:
			googleError(w, http.StatusTooManyRequests, "rateLimitExceeded", "slow down")
		default:
			googleError(w, http.StatusServiceUnavailable, "backendError", "try later")
		}
	})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := budgetRetry(10 * time.Second).RoundTrip(req)
	if err != nil {
		t.Fatalf("RoundTrip: %v (after %d attempts), want the answer of attempt 13", err, attempts.Load())
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || attempts.Load() != 13 {
		t.Errorf("status %d after %d attempts, want 200 after 13", resp.StatusCode, attempts.Load())
	}
}

// An API that is down fails the request within the budget, with the last
// error, after spending the budget (not a count of attempts) on it.
func TestRetryTransportDownAPIFailsWithinTheBudget(t *testing.T) {
	t.Parallel()
	srv, attempts := scriptedServer(t, func(attempt int, _ *http.Request, _ []byte, w http.ResponseWriter) {
		googleError(w, http.StatusServiceUnavailable, "backendError", fmt.Sprintf("down (attempt %d)", attempt))
	})
	const budget = time.Second
	rt := budgetRetry(budget)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	resp, err := rt.RoundTrip(req)
	took := time.Since(started)
	if resp != nil {
		_ = resp.Body.Close()
		t.Fatalf("got a %d response from an API that only answers 503", resp.StatusCode)
	}
	var exhausted *RetriesExhaustedError
	if !errors.As(err, &exhausted) {
		t.Fatalf("err = %v, want a RetriesExhaustedError", err)
	}
	if exhausted.Budget != budget || !strings.Contains(exhausted.Last, "503 Service Unavailable") ||
		!strings.Contains(err.Error(), "for 1s at most") {
		t.Errorf("err = %v (budget %s, last %q): want the budget and the last 503 named", err, exhausted.Budget, exhausted.Last)
	}
	// No wait is begun past the budget, and none is left out before it:
	// the last attempt came within one backoff (rt.Max) of its end.
	if took > budget+500*time.Millisecond || exhausted.Elapsed < budget-rt.Max-50*time.Millisecond {
		t.Errorf("gave up after %s (%s by the error), want within one backoff of the %s budget", took, exhausted.Elapsed, budget)
	}
	if n := int(attempts.Load()); n != exhausted.Attempts || n <= 20 {
		t.Errorf("%d attempts reached the server (%d by the error), want every one counted, and more than 20 in 1s of 1-20ms backoffs", n, exhausted.Attempts)
	}
}

// A Retry-After longer than the backoff is waited for on every attempt,
// and the request stops when the next one would end past the budget.
func TestRetryTransportRetryAfterWithinTheBudget(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var times []time.Time
	srv, attempts := scriptedServer(t, func(_ int, _ *http.Request, _ []byte, w http.ResponseWriter) {
		mu.Lock()
		times = append(times, time.Now())
		mu.Unlock()
		w.Header().Set("Retry-After", "1")
		googleError(w, http.StatusTooManyRequests, "rateLimitExceeded", "slow down")
	})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = budgetRetry(2500 * time.Millisecond).RoundTrip(req)
	var exhausted *RetriesExhaustedError
	if !errors.As(err, &exhausted) || !strings.Contains(exhausted.Last, "429") {
		t.Fatalf("err = %v, want a RetriesExhaustedError naming the last 429", err)
	}
	// Attempts at 0, 1 and 2 s; a fourth, at 3 s, is past the 2.5 s.
	if got := attempts.Load(); got != 3 {
		t.Errorf("attempts = %d, want 3 (one a second within 2.5 s)", got)
	}
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < len(times); i++ {
		if gap := times[i].Sub(times[i-1]); gap < 900*time.Millisecond {
			t.Errorf("attempt %d came %s after the one before, want the 1 s of Retry-After", i+1, gap)
		}
	}
}

// A request the project deems unsafe to repeat (a POST answered 500, 502
// or 504, which may come after the create was applied) is not retried,
// however much budget is left.
func TestRetryTransportBudgetDoesNotRetryUnsafeRequests(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout} {
		srv, attempts := scriptedServer(t, func(_ int, _ *http.Request, _ []byte, w http.ResponseWriter) {
			googleError(w, status, "backendError", "maybe applied")
		})
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, strings.NewReader(`{"name":"np"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := budgetRetry(10 * time.Second).RoundTrip(req)
		if err != nil {
			t.Fatalf("POST answered %d: err = %v, want the answer itself", status, err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != status || attempts.Load() != 1 {
			t.Errorf("POST answered %d: got %d after %d attempts, want it once, unretried", status, resp.StatusCode, attempts.Load())
		}
	}
}

// A request with no answer is retried MaxNoAnswerAttempts times at most,
// even with budget left: each attempt costs a whole request timeout.
func TestRetryTransportNoAnswerAttemptsAreBounded(t *testing.T) {
	t.Parallel()
	srv, attempts := silentServer(t, nil)
	rt := budgetRetry(time.Minute)
	rt.AttemptTimeout = 20 * time.Millisecond
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+"/compute/v1/projects/p", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rt.RoundTrip(req)
	var na *NoAnswerError
	if !errors.As(err, &na) {
		t.Fatalf("err = %v, want a NoAnswerError", err)
	}
	if got := attempts.Load(); got != MaxNoAnswerAttempts || na.Attempts != MaxNoAnswerAttempts {
		t.Errorf("the server saw %d attempts and the error says %d, want %d", got, na.Attempts, MaxNoAnswerAttempts)
	}
}
