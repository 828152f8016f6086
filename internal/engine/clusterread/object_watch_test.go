package clusterread

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// cutSlices serves one Slice whose watches end at once, with no event,
// cuts times; then a watch brings the Slice ACTIVE.
type cutSlices struct {
	dynamic.ResourceInterface

	mu      sync.Mutex
	cuts    int
	watches int
	rvs     []string
}

func (c *cutSlices) List(context.Context, metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	l := &unstructured.UnstructuredList{Items: []unstructured.Unstructured{*enginetest.SliceWithState("s", SliceActivating, "1")}}
	l.SetResourceVersion("1")
	return l, nil
}

func (c *cutSlices) Watch(_ context.Context, o metav1.ListOptions) (watch.Interface, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.watches++
	c.rvs = append(c.rvs, o.ResourceVersion)
	w := watch.NewFake()
	if c.watches <= c.cuts {
		go w.Stop() // cut: the watch ends with no event
		return w, nil
	}
	go w.Modify(enginetest.SliceWithState("s", SliceActive, "2"))
	return w, nil
}

// TestWatchObjectReconnectsWithinABoundedDelay: however many watches in a
// row end early, no reconnect waits more than watchReconnectMax, and each
// resumes from the last resource version.
func TestWatchObjectReconnectsWithinABoundedDelay(t *testing.T) {
	t.Parallel()
	var waits []time.Duration
	record := func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}

	c := &cutSlices{cuts: 40}
	var states []string
	err := watchObjectWith(t.Context(), c, "s", func(u *unstructured.Unstructured, gone bool) (bool, error) {
		if gone {
			t.Fatal("the Slice is reported gone")
		}
		s := SliceOf(u)
		states = append(states, s.State)
		return s.State == SliceActive, nil
	}, newWatchHealth(Options{}), record)
	if err != nil {
		t.Fatal(err)
	}
	if c.watches != 41 || len(waits) != 40 {
		t.Errorf("%d watches, %d waits; want 41 and 40", c.watches, len(waits))
	}
	for i, d := range waits {
		if d > watchReconnectMax {
			t.Errorf("reconnect %d waited %s, more than %s", i+1, d, watchReconnectMax)
		}
	}
	for i, rv := range c.rvs {
		if rv != "1" {
			t.Errorf("watch %d resumed from resource version %q, want the list's 1", i+1, rv)
		}
	}
	if len(states) != 2 || states[1] != SliceActive {
		t.Errorf("states seen: %v", states)
	}
}

// silentSlices is a Slice API whose lists have no answer.
type silentSlices struct {
	dynamic.ResourceInterface
	lists atomic.Int32
}

func (s *silentSlices) List(context.Context, metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	s.lists.Add(1)
	return nil, fmt.Errorf("Get \"https://10.0.0.2/apis/accelerator.gke.io/v1beta1/slices\": %w", kernel.ErrNoAnswer)
}

// A wait for a Slice whose first list has no answer fails at once, naming
// the cause, instead of retrying until the resource's timeout.
func TestWatchObjectFirstListNoAnswerFails(t *testing.T) {
	t.Parallel()
	s := &silentSlices{}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	err := watchObjectWith(ctx, s, "s", func(*unstructured.Unstructured, bool) (bool, error) { return true, nil },
		newWatchHealth(Options{}), func(context.Context, time.Duration) error { return nil })
	if !errors.Is(err, kernel.ErrNoAnswer) || ctx.Err() != nil || s.lists.Load() != 1 {
		t.Errorf("watchSlice = %v after %d lists, want the no-answer of the first", err, s.lists.Load())
	}
}
