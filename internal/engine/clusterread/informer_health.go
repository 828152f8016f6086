package clusterread

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// informerHealth follows whether an informer's lists and watches answer,
// from its list-watch functions: client-go's reflector keeps the failures
// it retries to itself (a refused watch, a watch cut at once) and backs off
// up to 30 s between them, so a wait that follows the informer learns from
// this whether the informer is following the cluster now, and probes the
// cluster itself while it is not.
type informerHealth struct {
	now func() time.Time
	// quickEnd: a watch that ends sooner than this with no event failed.
	quickEnd time.Duration

	mu               sync.Mutex
	failedAt, okAt   time.Time
	lastErr          error
	failures, events int
}

func newInformerHealth() *informerHealth {
	return &informerHealth{now: time.Now, quickEnd: watchQuickEnd}
}

// ok records a list that answered, a watch event, or a watch that stayed
// open.
func (h *informerHealth) ok() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.okAt = h.now()
}

// failed records a list or watch that failed (err nil: a watch that ended
// at once).
func (h *informerHealth) failed(err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failedAt = h.now()
	h.failures++
	if err != nil {
		h.lastErr = err
	}
}

// failing says whether the informer's last list or watch failed, and the
// last error of its run of failures.
func (h *informerHealth) failing() (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failedAt.IsZero() || !h.failedAt.After(h.okAt) {
		return false, nil
	}
	return true, h.lastErr
}

// list records a list's outcome and returns err.
func (h *informerHealth) list(err error) error {
	if err != nil {
		h.failed(err)
	} else {
		h.ok()
	}
	return err
}

// watch records a watch's opening and follows its events: the first event,
// or its staying open for quickEnd, is a success; an end before either is
// a failure (client-go turns a watch whose connection was reset or cut
// before its answer into an empty watch, with no error).
func (h *informerHealth) watch(w watch.Interface, err error) (watch.Interface, error) {
	if err != nil {
		h.failed(err)
		return w, err
	}
	out := &followedWatch{inner: w, events: make(chan watch.Event), stop: make(chan struct{})}
	var once sync.Once
	success := func() { once.Do(h.ok) }
	stayed := time.AfterFunc(h.quickEnd, success)
	go func() {
		defer close(out.events)
		defer stayed.Stop()
		for ev := range w.ResultChan() {
			if ev.Type != watch.Error {
				success()
			}
			select {
			case out.events <- ev:
			case <-out.stop:
				return
			}
		}
		if stayed.Stop() { // it ended before quickEnd
			once.Do(func() { h.failed(nil) })
		}
	}()
	return out, nil
}

// followedWatch relays a watch's events (see informerHealth.watch).
type followedWatch struct {
	inner    watch.Interface
	events   chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
}

func (w *followedWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stop)
		w.inner.Stop()
	})
}

func (w *followedWatch) ResultChan() <-chan watch.Event { return w.events }
