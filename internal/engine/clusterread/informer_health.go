package clusterread

import (
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
	// quickEnd: a watch that has stayed open this long follows the
	// cluster, events or not.
	quickEnd time.Duration

	mu             sync.Mutex
	failedAt, okAt time.Time
	lastErr        error
	failures       int
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

// watch records a watch's opening and follows it: the informer follows
// the cluster while the watch is open and has brought an event or stayed
// open for quickEnd. An error event, or an end the watch's consumer did
// not ask for (the server, a proxy or the connection ended it; client-go
// then backs off before it watches again), is a failure.
func (h *informerHealth) watch(w watch.Interface, err error) (watch.Interface, error) {
	if err != nil {
		h.failed(err)
		return w, err
	}
	out := &followedWatch{inner: w, events: make(chan watch.Event), stop: make(chan struct{})}
	stayed := time.AfterFunc(h.quickEnd, h.ok)
	go func() {
		defer close(out.events)
		defer stayed.Stop()
		for {
			var ev watch.Event
			var open bool
			select {
			case ev, open = <-w.ResultChan():
			case <-out.stop:
				return
			}
			if !open {
				stayed.Stop()
				select {
				case <-out.stop: // the consumer's Stop closed it
				default:
					h.failed(nil)
				}
				return
			}
			if ev.Type == watch.Error {
				stayed.Stop()
				h.failed(apierrors.FromObject(ev.Object))
			} else {
				h.ok()
			}
			select {
			case out.events <- ev:
			case <-out.stop:
				return
			}
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
