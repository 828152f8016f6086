package clients

import (
	"context"
	"math/rand/v2"
	"net/http"
	"time"
)

// retryPolicy is a RetryTransport's settings with their defaults filled in.
type retryPolicy struct {
	maxAttempts                int
	maxElapsed, attemptTimeout time.Duration
	initial, maxBackoff        time.Duration
	now                        func() time.Time
	sleep                      func(ctx context.Context, d time.Duration) error
}

func (t *RetryTransport) policy() retryPolicy {
	p := retryPolicy{maxAttempts: t.MaxAttempts, maxElapsed: t.MaxElapsed, attemptTimeout: t.AttemptTimeout,
		initial: t.Initial, maxBackoff: t.Max, now: t.Now, sleep: t.Sleep}
	if p.maxElapsed <= 0 {
		p.maxElapsed = DefaultMaxElapsed
	}
	if p.attemptTimeout <= 0 {
		p.attemptTimeout = DefaultRequestTimeout
	}
	if p.initial <= 0 {
		p.initial = DefaultRetryInitial
	}
	if p.maxBackoff <= 0 {
		p.maxBackoff = DefaultRetryMax
	}
	if p.now == nil {
		p.now = time.Now
	}
	if p.sleep == nil {
		p.sleep = sleep
	}
	return p
}

// decide is the retry decision after attempt number attempt came to r,
// elapsed into the request, with backoff the current backoff: the wait
// before the next attempt, or the error that ends the request. An answer
// (r.retry false, no final error) ends it too, handed to the caller.
func (p retryPolicy) decide(req *http.Request, r attemptResult, attempt int, elapsed, backoff time.Duration) (next time.Duration, final error) {
	if !r.retry {
		if r.bad != nil {
			return 0, r.bad.after(attempt, elapsed)
		}
		return 0, nil
	}
	next = backoff/2 + rand.N(backoff/2+1)
	if ra := retryAfter(r.resp); ra > next {
		next = ra
	}
	capped := p.maxAttempts > 0 && attempt >= p.maxAttempts
	if r.noAnswer && (capped || attempt >= MaxNoAnswerAttempts || elapsed+next+p.attemptTimeout > p.maxElapsed) {
		// Another attempt could not have its whole timeout within the
		// budget.
		return 0, &NoAnswerError{Endpoint: req.URL.Scheme + "://" + req.URL.Host, Timeout: r.waited,
			Attempts: attempt, Elapsed: elapsed, Advice: googleNoAnswerAdvice}
	}
	if capped || elapsed+next > p.maxElapsed {
		if r.bad != nil {
			return 0, r.bad.after(attempt, elapsed)
		}
		return 0, &RetriesExhaustedError{Method: req.Method, URL: redactedURL(req), Attempts: attempt, Elapsed: elapsed,
			Budget: p.maxElapsed, Last: r.why}
	}
	return next, nil
}

// after is e as the last of attempts over elapsed.
func (e *MalformedAnswerError) after(attempts int, elapsed time.Duration) *MalformedAnswerError {
	c := *e
	c.Attempts, c.Elapsed = attempts, elapsed
	return &c
}
