package clusterread

import (
	"errors"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
)

// The informer follows the cluster while its watch is open and has brought
// an event (or stayed open); an error event, a watch the server ended and
// a watch that could not open are failures; a watch its consumer stopped
// is not.
func TestInformerHealthFollowsTheWatch(t *testing.T) {
	t.Parallel()
	h := &informerHealth{now: time.Now, quickEnd: time.Hour}
	failing := func(want bool, when string) {
		t.Helper()
		if got, _ := h.failing(); got != want {
			t.Fatalf("%s: failing = %v, want %v", when, got, want)
		}
	}
	// drain receives one event of w, and waits until it was recorded.
	relay := func(inner *watch.FakeWatcher, ev func()) watch.Interface {
		w, err := h.watch(inner, nil)
		if err != nil {
			t.Fatal(err)
		}
		go ev()
		<-w.ResultChan()
		return w
	}
	failing(false, "before any watch")

	refused := errors.New("connection refused")
	if _, err := h.watch(nil, refused); !errors.Is(err, refused) {
		t.Fatalf("watch error = %v", err)
	}
	failing(true, "a watch that could not open")

	inner := watch.NewFake()
	w := relay(inner, func() { inner.Add(enginetest.SliceWithState("s", SliceActivating, "1")) })
	failing(false, "an event")

	go inner.Error(&apierrors.NewInternalError(errors.New("stream reset")).ErrStatus)
	<-w.ResultChan()
	failing(true, "an error event")

	inner2 := watch.NewFake()
	w2 := relay(inner2, func() { inner2.Modify(enginetest.SliceWithState("s", SliceActive, "2")) })
	failing(false, "an event of the next watch")
	inner2.Stop() // the server ends it
	for range w2.ResultChan() {
	}
	failing(true, "a watch the server ended")

	inner3 := watch.NewFake()
	w3 := relay(inner3, func() { inner3.Add(enginetest.SliceWithState("s", SliceActive, "3")) })
	w3.Stop() // the consumer stops it
	for range w3.ResultChan() {
	}
	failing(false, "a watch its consumer stopped")

	stays := &informerHealth{now: time.Now, quickEnd: time.Millisecond}
	stays.failed(refused)
	quiet := watch.NewFake()
	if _, err := stays.watch(quiet, nil); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; {
		if f, _ := stays.failing(); !f {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a watch that stayed open past quickEnd did not end the failures")
		}
		time.Sleep(time.Millisecond)
	}
}
