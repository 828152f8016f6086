package clients

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

// The Google API requests' transport takes the budget and backoffs of
// the Options, and the request timeout of the Config; a zero field takes
// its default.
func TestGoogleRetryTakesTheOptions(t *testing.T) {
	t.Parallel()
	base := roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, errors.New("not sent") })
	type bounds struct {
		Initial, Max, MaxElapsed, AttemptTimeout time.Duration
		MaxAttempts                              int
	}
	for name, tc := range map[string]struct {
		cfg  Config
		opts Options
		want bounds
	}{
		"defaults": {Config{}, Options{},
			bounds{Initial: DefaultRetryInitial, Max: DefaultRetryMax, MaxElapsed: DefaultMaxElapsed, AttemptTimeout: DefaultRequestTimeout}},
		"given": {Config{RequestTimeout: 3 * time.Second}, Options{RetryBudget: time.Second, RetryInitial: time.Millisecond, RetryMax: 5 * time.Millisecond},
			bounds{Initial: time.Millisecond, Max: 5 * time.Millisecond, MaxElapsed: time.Second, AttemptTimeout: 3 * time.Second}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rt := googleRetry(base, tc.cfg, tc.opts)
			got := bounds{Initial: rt.Initial, Max: rt.Max, MaxElapsed: rt.MaxElapsed, AttemptTimeout: rt.AttemptTimeout, MaxAttempts: rt.MaxAttempts}
			if got != tc.want || rt.Base == nil || rt.Now != nil || rt.Sleep != nil {
				t.Errorf("googleRetry = %+v (base set %v, clock set %v), want %+v over base, on the real clock",
					got, rt.Base != nil, rt.Now != nil || rt.Sleep != nil, tc.want)
			}
		})
	}
}

// A Set's Google API requests retry within the Options' budget and
// backoffs: with an hour's backoff and a minute's budget, a 503 is not
// retried (the first wait would pass the budget), and the error names
// the budget given.
func TestNewRetriesWithinTheOptions(t *testing.T) {
	t.Parallel()
	srv, attempts := scriptedServer(t, func(attempt int, _ *http.Request, _ []byte, w http.ResponseWriter) {
		if attempt == 1 {
			googleError(w, http.StatusServiceUnavailable, "backendError", "busy")
			return
		}
		_, _ = w.Write([]byte(`{"name":"pool"}`))
	})
	set, err := New(t.Context(), Config{AccessToken: testToken, ContainerEndpoint: srv.URL + "/"},
		Options{RetryBudget: time.Minute, RetryInitial: time.Hour, RetryMax: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	_, err = set.GKE().GetNodePool(t.Context(), "projects/p/locations/l/clusters/c/nodePools/pool")
	var exhausted *RetriesExhaustedError
	if !errors.As(err, &exhausted) || exhausted.Budget != time.Minute || exhausted.Attempts != 1 || attempts.Load() != 1 {
		t.Errorf("GetNodePool = %v after %d attempts, want a RetriesExhaustedError of the 1m budget after 1 attempt", err, attempts.Load())
	}
}
