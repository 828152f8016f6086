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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// The bounds the tests hand the reads: a run of failures ends a wait
// after 100 ms, and a wait whose inventory is not following probes every
// 10 ms.
const (
	testFailLimit  = 100 * time.Millisecond
	testProbeEvery = 10 * time.Millisecond
)

// sliceAPI is a fake cluster's Slice API (over the fake dynamic client's
// tracker) that counts its requests and can die: after die, lists, gets
// and watches fail with err, or, when err is nil, watches end at once
// with no event (client-go's answer to a reset connection) while gets and
// lists answer. Open watches end when it dies.
type sliceAPI struct {
	dynamic.ResourceInterface

	mu                  sync.Mutex
	dead                bool
	err                 error
	gets, lists, watchs int
	open                []watch.Interface
	// onGet, when set, runs before each get (n counts them from 1).
	onGet func(n int)
	// getAnswer, when set, answers gets in place of the tracker.
	getAnswer *unstructured.Unstructured
}

func newSliceAPI(slices ...*unstructured.Unstructured) (*sliceAPI, kernel.Cluster) {
	kube, _ := enginetest.NewKube()
	objs := make([]runtime.Object, len(slices))
	for i, s := range slices {
		objs[i] = s
	}
	dyn := enginetest.NewDynamic(objs...)
	api := &sliceAPI{ResourceInterface: dyn.Resource(kernel.SliceGVR)}
	return api, slicesCluster{Cluster: kernel.NewCluster(kube, dyn), slices: api}
}

// slicesCluster is a Cluster whose Slice API is a sliceAPI.
type slicesCluster struct {
	kernel.Cluster
	slices dynamic.ResourceInterface
}

func (c slicesCluster) Slices() dynamic.ResourceInterface { return c.slices }

func (a *sliceAPI) die(err error) {
	a.mu.Lock()
	a.dead, a.err = true, err
	open := a.open
	a.open = nil
	a.mu.Unlock()
	for _, w := range open {
		w.Stop()
	}
}

func (a *sliceAPI) counts() (gets, lists, watches int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.gets, a.lists, a.watchs
}

func (a *sliceAPI) Get(ctx context.Context, name string, o metav1.GetOptions, sub ...string) (*unstructured.Unstructured, error) {
	a.mu.Lock()
	a.gets++
	n, onGet, dead, err, answer := a.gets, a.onGet, a.dead, a.err, a.getAnswer
	a.mu.Unlock()
	if onGet != nil {
		onGet(n)
	}
	if dead && err != nil {
		return nil, err
	}
	if answer != nil {
		return answer.DeepCopy(), nil
	}
	return a.ResourceInterface.Get(ctx, name, o, sub...)
}

func (a *sliceAPI) List(ctx context.Context, o metav1.ListOptions) (*unstructured.UnstructuredList, error) {
	a.mu.Lock()
	a.lists++
	dead, err := a.dead, a.err
	a.mu.Unlock()
	if dead && err != nil {
		return nil, err
	}
	return a.ResourceInterface.List(ctx, o)
}

func (a *sliceAPI) Watch(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.watchs++
	if a.dead {
		if a.err != nil {
			return nil, a.err
		}
		w := watch.NewFake()
		go w.Stop()
		return w, nil
	}
	w, err := a.ResourceInterface.Watch(ctx, o)
	if err == nil {
		a.open = append(a.open, w)
	}
	return w, err
}

// testReads are reads over c with the tests' bounds.
func testReads(c kernel.Cluster) *Reads {
	return New(nil, ClusterRef{Unnamed: errors.New("no cluster named")},
		func(context.Context) (kernel.Cluster, error) { return c, nil },
		Options{WatchFailLimit: testFailLimit, WatchProbeEvery: testProbeEvery})
}

// awaitActive waits, through reads with the tests' bounds, until the Slice
// s is ACTIVE, and returns the states it saw. ctx only keeps a wait that
// never ends from hanging the test.
func awaitActive(t *testing.T, reads *Reads, api *sliceAPI) ([]string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var states []string
	err := reads.AwaitSlice(ctx, api, "s", func(u *unstructured.Unstructured, gone bool) (bool, error) {
		if gone {
			return false, fmt.Errorf("the Slice is gone")
		}
		states = append(states, SliceOf(u).State+"@"+u.GetResourceVersion())
		return SliceOf(u).State == SliceActive, nil
	})
	if ctx.Err() != nil {
		t.Fatalf("the wait did not end: %v", err)
	}
	return states, err
}

// started starts reads' inventory and waits for its first lists, so that
// a test changes the cluster only once the informer follows it.
func started(t *testing.T, reads *Reads) *Inventory {
	t.Helper()
	inv, err := reads.Inventory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := inv.StartAll(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(inv.Stop)
	return inv
}

// A wait follows the inventory's one watch of the Slices: it reads the
// Slice once, then sees it change through the informer, and makes no list
// or watch of its own.
func TestAwaitSliceFollowsTheInventory(t *testing.T) {
	t.Parallel()
	api, c := newSliceAPI(enginetest.SliceWithState("s", SliceActivating, "1"))
	reads := testReads(c)
	started(t, reads)
	_, listsBefore, watchesBefore := api.counts()
	api.onGet = func(n int) {
		if n == 1 { // the wait's first read: now the controller forms the slice
			go func() {
				if _, err := api.Update(context.Background(), enginetest.SliceWithState("s", SliceActive, "2"), metav1.UpdateOptions{}); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	states, err := awaitActive(t, reads, api)
	if err != nil {
		t.Fatal(err)
	}
	if last := states[len(states)-1]; last != SliceActive+"@2" {
		t.Errorf("states seen %v, want ACTIVE at resource version 2 last", states)
	}
	gets, lists, watches := api.counts()
	if gets != 1 || lists != listsBefore || watches != watchesBefore {
		t.Errorf("the wait made %d gets, %d lists and %d watches of its own; want 1 get and no list or watch",
			gets, lists-listsBefore, watches-watchesBefore)
	}
}

// An inventory that trails the cluster (a create or a replacement just
// made) shows older states of the Slice: the wait passes over them and
// hands on only what is at least as new as its read.
func TestAwaitSlicePassesOverAnInventoryThatTrails(t *testing.T) {
	t.Parallel()
	// The inventory holds the replaced Slice, ACTIVE; the cluster has its
	// successor, ACTIVATING.
	api, c := newSliceAPI(enginetest.SliceWithState("s", SliceActive, "5"))
	reads := testReads(c)
	started(t, reads)
	api.getAnswer = enginetest.SliceWithState("s", SliceActivating, "9")
	api.onGet = func(n int) {
		if n == 1 {
			go func() {
				if _, err := api.Update(context.Background(), enginetest.SliceWithState("s", SliceActive, "10"), metav1.UpdateOptions{}); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	states, err := awaitActive(t, reads, api)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{SliceActivating + "@9", SliceActive + "@10"}
	if fmt.Sprint(states) != fmt.Sprint(want) {
		t.Errorf("states seen %v, want %v: the replaced Slice's ACTIVE is not the new one's", states, want)
	}
}

// A Slice that does not exist is reported gone at the first read; a wait
// for its deletion ends there.
func TestAwaitSliceOfNoSlice(t *testing.T) {
	t.Parallel()
	api, c := newSliceAPI()
	reads := testReads(c)
	var got []bool
	err := reads.AwaitSlice(t.Context(), api, "s", func(u *unstructured.Unstructured, gone bool) (bool, error) {
		got = append(got, gone && u == nil)
		return gone, nil
	})
	if err != nil || fmt.Sprint(got) != "[true]" {
		t.Errorf("AwaitSlice = %v, handle saw %v; want one call, gone with no object", err, got)
	}
}

// A wait whose first read has no answer fails at once, naming the cause,
// instead of waiting until the resource's timeout.
func TestAwaitSliceFirstReadNoAnswerFails(t *testing.T) {
	t.Parallel()
	api, c := newSliceAPI(enginetest.SliceWithState("s", SliceActivating, "1"))
	reads := testReads(c)
	started(t, reads)
	api.die(fmt.Errorf("Get \"https://10.0.0.2/apis/accelerator.gke.io/v1beta1/slices/s\": %w", kernel.ErrNoAnswer))
	_, err := awaitActive(t, reads, api)
	if gets, _, _ := api.counts(); !errors.Is(err, kernel.ErrNoAnswer) || gets != 1 {
		t.Errorf("wait = %v after %d gets, want the no-answer of the first", err, gets)
	}
}

// An API server that dies while a wait follows the inventory (refused,
// answered 502 by a proxy or load balancer in front of it, reset, or never
// answered) ends the wait once the wait's own reads have failed for the
// WatchFailLimit, with the last cause.
func TestAwaitSliceEndsWhenTheAPIServerDies(t *testing.T) {
	t.Parallel()
	refused := fmt.Errorf("dial tcp 127.0.0.1:6443: %w", syscall.ECONNREFUSED)
	badGateway := apierrors.NewGenericServerResponse(502, "get", kernel.SliceGVR.GroupResource(), "", "connection refused", 0, true)
	reset := fmt.Errorf("read tcp: %w", syscall.ECONNRESET)
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"refused", refused},
		{"502", badGateway},
		{"reset", reset},
		{"no answer", fmt.Errorf("get: %w", kernel.ErrNoAnswer)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			api, c := newSliceAPI(enginetest.SliceWithState("s", SliceActivating, "1"))
			reads := testReads(c)
			started(t, reads)
			api.onGet = func(n int) {
				if n == 1 { // after the wait's first read
					go api.die(tc.err)
				}
			}
			_, err := awaitActive(t, reads, api)
			var failing *WatchFailingError
			if !errors.As(err, &failing) || !errors.Is(err, tc.err) {
				t.Fatalf("wait ended with %v, want a WatchFailingError with the last cause %v", err, tc.err)
			}
			if failing.Failing < testFailLimit {
				t.Errorf("the wait ended after failing for %s, before the limit (%s)", failing.Failing, testFailLimit)
			}
			gets, _, _ := api.counts()
			if failing.Attempts != gets-1 || failing.Attempts < 2 {
				t.Errorf("the error counts %d failed attempts; the server failed %d of the wait's reads", failing.Attempts, gets-1)
			}
		})
	}
}

// Watches that a proxy cuts at once while reads answer are not a dead API
// server: the wait reads the Slice while the inventory cannot follow it,
// goes on past the WatchFailLimit, and sees the Slice ACTIVE.
func TestAwaitSliceOutlastsCutWatchesOfALiveServer(t *testing.T) {
	t.Parallel()
	api, c := newSliceAPI(enginetest.SliceWithState("s", SliceActivating, "1"))
	reads := testReads(c)
	started(t, reads)
	// The slice forms only once the wait has read it for more than twice
	// the limit's worth of probes: a wait that took the cut watches for a
	// dead server would have ended before.
	const formsAt = 2*int(testFailLimit/testProbeEvery) + 5
	api.onGet = func(n int) {
		switch n {
		case 1:
			go api.die(nil)
		case formsAt:
			api.getAnswer = enginetest.SliceWithState("s", SliceActive, "2")
		}
	}
	if _, err := awaitActive(t, reads, api); err != nil {
		t.Fatalf("wait: %v, want the Slice ACTIVE", err)
	}
	if gets, _, _ := api.counts(); gets < formsAt {
		t.Errorf("%d gets, want the wait's %d reads while the informer could not follow", gets, formsAt)
	}
}
