package clients

import "time"

// The retry backoff of the Google API requests: it starts at
// DefaultRetryInitial and doubles up to DefaultRetryMax, each wait drawn
// between half the backoff and the whole of it.
const (
	DefaultRetryInitial = 200 * time.Millisecond
	DefaultRetryMax     = 10 * time.Second
)

// Options are the clients' budgets and cadences; a zero field takes its default.
type Options struct {
	// RetryBudget bounds the time one Google API request spends retrying (DefaultMaxElapsed, 2m).
	RetryBudget time.Duration
	// RetryInitial and RetryMax bound the backoff between attempts (200ms, 10s).
	RetryInitial, RetryMax time.Duration
}
