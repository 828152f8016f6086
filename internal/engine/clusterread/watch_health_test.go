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
// a reset connection). With alive set, lists keep answering while watches
// end at once, until becomeActive, when a watch brings the Slice ACTIVE.
type dyingSlices struct {
	dynamic.ResourceInterface
	listErr, watchErr error
	alive             bool
	becomeActive      time.Time

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
	if d.alive && time.Now().After(d.becomeActive) {
		go w.Modify(enginetest.SliceWithState("s", SliceActive, "2"))
	} else {
		go w.Stop()
	}
	return w, nil
}

// shortWatchBounds makes a run of failures end a wait in 300 ms. Not
// parallel: it sets the package's bounds.
func shortWatchBounds(t *testing.T) {
	limit, probe := watchFailLimit, watchProbeEvery
	watchFailLimit, watchProbeEvery = 300*time.Millisecond, 50*time.Millisecond
	t.Cleanup(func() { watchFailLimit, watchProbeEvery = limit, probe })
}

func waitActive(ctx context.Context, slices dynamic.ResourceInterface) error {
	return watchSliceWith(ctx, slices, "s", func(u *unstructured.Unstructured, gone bool) (bool, error) {
		return !gone && SliceOf(u).State == SliceActive, nil
	}, func(ctx context.Context, _ time.Duration) error { return reconnectWait(ctx, 10*time.Millisecond) })
}

// An API server that dies while a wait watches (refused, answered 502 by
// a proxy or load balancer in front of it, reset, or never answered) ends
// the wait once its lists and watches have failed for watchFailLimit,
// with the last cause; before, the wait reconnected every second until
// the create timeout.
func TestWatchSliceEndsWhenTheAPIServerDies(t *testing.T) {
	shortWatchBounds(t)
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
			d := &dyingSlices{listErr: tc.listErr, watchErr: tc.watchErr}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			started := time.Now()
			err := waitActive(ctx, d)
			took := time.Since(started)
			var failing *WatchFailingError
			if !errors.As(err, &failing) || !errors.Is(err, tc.listErr) {
				t.Fatalf("wait ended with %v, want a WatchFailingError with the last cause %v", err, tc.listErr)
			}
			if took < watchFailLimit || took > 3*watchFailLimit {
				t.Errorf("wait ended after %s, want about %s", took, watchFailLimit)
			}
			if d.lists < 2 {
				t.Errorf("%d lists: the wait never listed again to see whether the server answers", d.lists)
			}
		})
	}
}

// Watches that a proxy cuts at once while lists answer are not a dead API
// server: the wait goes on past watchFailLimit and sees the Slice ACTIVE.
func TestWatchSliceOutlastsCutWatchesOfALiveServer(t *testing.T) {
	shortWatchBounds(t)
	d := &dyingSlices{alive: true, becomeActive: time.Now().Add(3 * watchFailLimit)}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := waitActive(ctx, d); err != nil {
		t.Fatalf("wait: %v, want the Slice ACTIVE", err)
	}
	if d.lists < 2 {
		t.Errorf("%d lists, want the probes' lists too", d.lists)
	}
}
