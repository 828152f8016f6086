package clusterread

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// dyingSlices serves one ACTIVATING Slice; after its first list, the API
// server is gone: lists fail with listErr, and watches fail with watchErr
// or, when that is nil, end at once with no event (client-go's answer to
// a reset connection). With alive set, lists keep answering while
// watches end at once, cuts times; then a watch brings the Slice ACTIVE.
type dyingSlices struct {
	dynamic.ResourceInterface
	listErr, watchErr error
	alive             bool
	cuts              int

	mu             sync.Mutex
	lists, watches int
}

func (d *dyingSlices) List(context.Context, metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.lists++
	if d.lists > 1 && !d.alive {
		return nil, d.listErr
	}
	l := &unstructured.UnstructuredList{Items: []unstructured.Unstructured{*enginetest.SliceWithState("s", SliceActivating, "1")}}
	l.SetResourceVersion("1")
	return l, nil
}

func (d *dyingSlices) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.watches++
	if d.watchErr != nil && !d.alive {
		return nil, d.watchErr
	}
	w := watch.NewFake()
	if d.alive && d.watches > d.cuts {
		go w.Modify(enginetest.SliceWithState("s", SliceActive, "2"))
	} else {
		go w.Stop()
	}
	return w, nil
}

// counts is how many lists and watches the server saw.
func (d *dyingSlices) counts() (lists, watches int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lists, d.watches
}

// The bounds the tests hand the reads: a run of failures ends a wait
// after 100 ms, and a failing wait probes with a list every 10 ms, less
// than the first reconnect delay (watchReconnectInitial): a reconnect
// after a failure always lists first.
const (
	testFailLimit  = 100 * time.Millisecond
	testProbeEvery = 10 * time.Millisecond
)

// waitActive waits, through reads built with the test's bounds, until the
// Slice s is ACTIVE. ctx only keeps a wait that never ends from hanging
// the test.
func waitActive(t *testing.T, slices dynamic.ResourceInterface) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	reads := New(nil, ClusterRef{Unnamed: errors.New("no cluster named")}, nil, Options{WatchFailLimit: testFailLimit, WatchProbeEvery: testProbeEvery})
	err := reads.WatchSlice(ctx, slices, "s", func(u *unstructured.Unstructured, gone bool) (bool, error) {
		return !gone && SliceOf(u).State == SliceActive, nil
	})
	if ctx.Err() != nil {
		t.Fatalf("the wait did not end: %v", err)
	}
	return err
}

// An API server that dies while a wait watches (refused, answered 502 by
// a proxy or load balancer in front of it, reset, or never answered) ends
// the wait once its lists and watches have failed for the WatchFailLimit,
// with the last cause; before, the wait reconnected every second until
// the create timeout.
func TestWatchSliceEndsWhenTheAPIServerDies(t *testing.T) {
	t.Parallel()
	refused := fmt.Errorf("dial tcp 127.0.0.1:6443: %w", syscall.ECONNREFUSED)
	badGateway := apierrors.NewGenericServerResponse(502, "get", kernel.SliceGVR.GroupResource(), "", "connection refused", 0, true)
	reset := fmt.Errorf("read tcp: %w", syscall.ECONNRESET)
	for _, tc := range []struct {
		name              string
		listErr, watchErr error
	}{
		{"refused", refused, refused},
		{"502", badGateway, badGateway},
		{"reset", reset, nil},
		{"no answer", fmt.Errorf("list: %w", kernel.ErrNoAnswer), fmt.Errorf("watch: %w", kernel.ErrNoAnswer)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := &dyingSlices{listErr: tc.listErr, watchErr: tc.watchErr}
			err := waitActive(t, d)
			lists, watches := d.counts()
			var failing *WatchFailingError
			if !errors.As(err, &failing) || !errors.Is(err, tc.listErr) {
				t.Fatalf("wait ended with %v, want a WatchFailingError with the last cause %v", err, tc.listErr)
			}
			// Not before the limit: the run it reports lasted it.
			if failing.Failing < testFailLimit {
				t.Errorf("the wait ended after failing for %s, before the limit (%s)", failing.Failing, testFailLimit)
			}
			// Every list after the first and every watch failed, each
			// counted in the one run, and the wait ended at the last.
			if failed := lists - 1 + watches; failing.Attempts != failed || failing.Attempts < 2 {
				t.Errorf("the error counts %d failed attempts; the server failed %d lists and %d watches",
					failing.Attempts, lists-1, watches)
			}
			if lists < 2 {
				t.Errorf("%d lists: the wait never listed again to see whether the server answers", lists)
			}
		})
	}
}

// Watches that a proxy cuts at once while lists answer are not a dead API
// server: the wait goes on past the WatchFailLimit and sees the Slice
// ACTIVE.
func TestWatchSliceOutlastsCutWatchesOfALiveServer(t *testing.T) {
	t.Parallel()
	// Between the first cut and the watch after the last, the wait
	// pauses at least its first reconnect delays (50, 100, 200 and 400
	// ms): the cuts span more than the limit, and a wait that took them
	// for a dead server would end before the Slice is ACTIVE.
	const cuts = 4
	if span := watchReconnectInitial * (1<<cuts - 1); span < 2*testFailLimit {
		t.Fatalf("%d cut watches span at least %s, not past the limit (%s)", cuts, span, testFailLimit)
	}
	d := &dyingSlices{alive: true, cuts: cuts}
	if err := waitActive(t, d); err != nil {
		t.Fatalf("wait: %v, want the Slice ACTIVE", err)
	}
	lists, watches := d.counts()
	if watches != cuts+1 {
		t.Errorf("%d watches, want the %d cut and the one that saw the Slice ACTIVE", watches, cuts)
	}
	if lists < 2 {
		t.Errorf("%d lists, want the probes' lists too", lists)
	}
}
