package clusterread

import (
	"fmt"
	"time"
)

// Bounds of a wait whose cluster stops answering (its API server killed,
// restarting for longer than a restart takes, or its host refusing
// connections): the defaults of Options.WatchFailLimit and
// Options.WatchProbeEvery.
const (
	// DefaultWatchFailLimit is how long a Slice wait's lists and watches
	// may keep failing, with no success between, before the wait ends with
	// the cause. A restart of the API server takes seconds; the create
	// timeout is tens of minutes.
	DefaultWatchFailLimit = 45 * time.Second
	// DefaultWatchProbeEvery is how often a wait whose watches keep
	// failing lists again, to learn whether the API server answers at
	// all.
	DefaultWatchProbeEvery = 5 * time.Second
)

// watchQuickEnd: a watch that ends sooner than this with no event
// failed. client-go turns a watch whose connection was reset or cut
// before its answer into an empty watch, with no error.
const watchQuickEnd = 2 * time.Second

// WatchFailingError is a wait whose lists and watches of the cluster kept
// failing (refused, reset, 5xx or unanswered) for Limit, with no success
// between: the API server is gone or unreachable.
type WatchFailingError struct {
	// Failing is how long they failed; Attempts how many failed.
	Failing  time.Duration
	Attempts int
	// Err is the last error seen (nil when every failure was a watch that
	// ended at once).
	Err error
}

func (e *WatchFailingError) Error() string {
	last := "every watch ended at once"
	if e.Err != nil {
		last = e.Err.Error()
	}
	return fmt.Sprintf("the cluster's API server stopped answering: its lists and watches failed %d times over %s (last: %s)",
		e.Attempts, e.Failing.Round(time.Second), last)
}

func (e *WatchFailingError) Unwrap() error { return e.Err }

// watchHealth follows a wait's run of failed lists and watches.
type watchHealth struct {
	// limit is how long a run of failures may last; probeEvery how often
	// a list replaces a watch during one.
	limit, probeEvery time.Duration
	now               func() time.Time
	since             time.Time // when the run began; zero when there is none
	attempts          int
	last              error
	probed            time.Time // when the last probe list was made
}

// newWatchHealth follows a run of failures within o's WatchFailLimit and
// WatchProbeEvery.
func newWatchHealth(o Options) *watchHealth {
	return &watchHealth{limit: o.watchFailLimit(), probeEvery: o.watchProbeEvery(), now: time.Now}
}

// ok ends the run of failures: a list answered, or a watch gave an event.
func (h *watchHealth) ok() {
	h.since, h.attempts, h.last = time.Time{}, 0, nil
}

// failed adds a failure (err nil: a watch that ended at once) and returns
// a WatchFailingError once the run has lasted the limit.
func (h *watchHealth) failed(err error) error {
	now := h.now()
	if h.since.IsZero() {
		h.since = now
	}
	h.attempts++
	if err != nil {
		h.last = err
	}
	if failing := now.Sub(h.since); failing >= h.limit {
		return &WatchFailingError{Failing: failing, Attempts: h.attempts, Err: h.last}
	}
	return nil
}

// shouldProbe says whether a list should replace the next watch: the run
// of failures has lasted probeEvery since it began or since the last
// probe.
func (h *watchHealth) shouldProbe() bool {
	if h.since.IsZero() {
		return false
	}
	now := h.now()
	from := h.since
	if h.probed.After(from) {
		from = h.probed
	}
	if now.Sub(from) < h.probeEvery {
		return false
	}
	h.probed = now
	return true
}
