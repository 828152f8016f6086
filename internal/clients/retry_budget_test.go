package clients

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// budgetRetry is the provider's retry policy (no bound on attempts, a
// time budget) with short backoffs (1 to 20 ms) and the given budget, on
// clock.
func budgetRetry(clock *fakeClock, budget time.Duration) *RetryTransport {
	rt := NewRetryTransport(nil)
	rt.Initial, rt.Max, rt.MaxElapsed = time.Millisecond, 20*time.Millisecond, budget
	return clock.drive(rt)
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
	clock := newFakeClock()
	resp, err := budgetRetry(clock, 10*time.Second).RoundTrip(req)
	if err != nil {
		t.Fatalf("RoundTrip: %v (after %d attempts), want the answer of attempt 13", err, attempts.Load())
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || attempts.Load() != 13 {
		t.Errorf("status %d after %d attempts, want 200 after 13", resp.StatusCode, attempts.Load())
	}
	if waits := clock.Waits(); len(waits) != 12 {
		t.Errorf("%d waits (%v), want one before each of the 12 retries", len(waits), waits)
	}
}

// An API that is down fails the request within the budget, with the last
// error, after spending the budget (not a count of attempts) on it: the
// waits sum to at most the budget, and the one that would have come next
// would have passed it.
func TestRetryTransportDownAPIFailsWithinTheBudget(t *testing.T) {
	t.Parallel()
	srv, attempts := scriptedServer(t, func(attempt int, _ *http.Request, _ []byte, w http.ResponseWriter) {
		googleError(w, http.StatusServiceUnavailable, "backendError", fmt.Sprintf("down (attempt %d)", attempt))
	})
	const budget = time.Second
	clock := newFakeClock()
	rt := budgetRetry(clock, budget)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := rt.RoundTrip(req)
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
	waits := clock.Waits()
	spent := sum(waits)
	// No wait is begun past the budget, and none is left out before it:
	// the next wait (at most rt.Max) would have passed it.
	if spent > budget || spent+rt.Max <= budget {
		t.Errorf("the %d waits sum to %s, want at most the %s budget and within one backoff (%s) of it", len(waits), spent, budget, rt.Max)
	}
	if exhausted.Elapsed != spent {
		t.Errorf("the error says %s elapsed, want the %s of waits on the clock", exhausted.Elapsed, spent)
	}
	if n := int(attempts.Load()); n != exhausted.Attempts || n != len(waits)+1 || n <= 20 {
		t.Errorf("%d attempts reached the server (%d by the error) around %d waits, want every one counted, one more than the waits, and more than 20 in 1s of 1-20ms backoffs",
			n, exhausted.Attempts, len(waits))
	}
	if i := slices.IndexFunc(waits, func(w time.Duration) bool { return w > rt.Max }); i >= 0 {
		t.Errorf("wait %d is %s, longer than the longest backoff (%s)", i+1, waits[i], rt.Max)
	}
}

// A Retry-After longer than the backoff is waited for on every attempt,
// and the request stops when the next wait would end past the budget.
func TestRetryTransportRetryAfterWithinTheBudget(t *testing.T) {
	t.Parallel()
	srv, attempts := scriptedServer(t, func(_ int, _ *http.Request, _ []byte, w http.ResponseWriter) {
		w.Header().Set("Retry-After", "1")
		googleError(w, http.StatusTooManyRequests, "rateLimitExceeded", "slow down")
	})
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	clock := newFakeClock()
	_, err = budgetRetry(clock, 2500*time.Millisecond).RoundTrip(req)
	var exhausted *RetriesExhaustedError
	if !errors.As(err, &exhausted) || !strings.Contains(exhausted.Last, "429") {
		t.Fatalf("err = %v, want a RetriesExhaustedError naming the last 429", err)
	}
	// Attempts at 0, 1 and 2 s; a fourth, at 3 s, is past the 2.5 s.
	if got := attempts.Load(); got != 3 || exhausted.Attempts != 3 {
		t.Errorf("attempts = %d (%d by the error), want 3 (one a second within 2.5 s)", got, exhausted.Attempts)
	}
	if waits := clock.Waits(); !slices.Equal(waits, []time.Duration{time.Second, time.Second}) {
		t.Errorf("waits = %v, want the 1s of Retry-After before each of the 2 retries", waits)
	}
}

// A request the project deems unsafe to repeat (a POST answered 500, 502
// or 504, which may come after the create was applied) is not retried,
// however much budget is left.
func TestRetryTransportBudgetDoesNotRetryUnsafeRequests(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			t.Parallel()
			srv, attempts := scriptedServer(t, func(_ int, _ *http.Request, _ []byte, w http.ResponseWriter) {
				googleError(w, status, "backendError", "maybe applied")
			})
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL, strings.NewReader(`{"name":"np"}`))
			if err != nil {
				t.Fatal(err)
			}
			clock := newFakeClock()
			resp, err := budgetRetry(clock, 10*time.Second).RoundTrip(req)
			if err != nil {
				t.Fatalf("POST answered %d: err = %v, want the answer itself", status, err)
			}
			_ = resp.Body.Close()
			if resp.StatusCode != status || attempts.Load() != 1 || len(clock.Waits()) != 0 {
				t.Errorf("POST answered %d: got %d after %d attempts and waits %v, want it once, unretried", status, resp.StatusCode, attempts.Load(), clock.Waits())
			}
		})
	}
}

// A request with no answer is retried MaxNoAnswerAttempts times at most,
// even with budget left: each attempt costs a whole request timeout.
func TestRetryTransportNoAnswerAttemptsAreBounded(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	const timeout = 200 * time.Millisecond
	base, attempts := hangingEndpoint(clock, timeout)
	rt := budgetRetry(clock, time.Minute)
	rt.Base, rt.AttemptTimeout = base, timeout
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, "https://compute.example/compute/v1/projects/p", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = rt.RoundTrip(req)
	var na *NoAnswerError
	if !errors.As(err, &na) {
		t.Fatalf("err = %v, want a NoAnswerError", err)
	}
	if got := attempts.Load(); got != MaxNoAnswerAttempts || na.Attempts != MaxNoAnswerAttempts {
		t.Errorf("the endpoint saw %d attempts and the error says %d, want %d", got, na.Attempts, MaxNoAnswerAttempts)
	}
	if waits := clock.Waits(); len(waits) != MaxNoAnswerAttempts-1 {
		t.Errorf("%d waits, want one between each two of the %d attempts", len(waits), MaxNoAnswerAttempts)
	}
	if na.Timeout != timeout {
		t.Errorf("the error says each attempt waited %s, want the %s the endpoint hung on the clock", na.Timeout, timeout)
	}
}
