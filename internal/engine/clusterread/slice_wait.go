package clusterread

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// sliceHandler receives the Slice as the wait sees it: gone is true when
// it is not there (obj is then the last state seen, nil when it was never
// seen). It says when the wait is done.
type sliceHandler func(obj *unstructured.Unstructured, gone bool) (done bool, err error)

// AwaitSlice follows the Slice named name until handle says done or fails,
// or ctx ends. It reads the Slice once (slices.Get: the wait starts from
// the cluster's state, not from an inventory that may trail a create just
// made), then follows the inventory's informer of the Slices, the one
// watch of Slices of the process, handing handle every change of the
// Slice at least as new as what it saw. Errors that waiting does not cure
// (credentials, permissions, no Slice API) end it at once.
//
// While the informer's lists and watches fail (refused, reset, 5xx,
// unanswered, watches cut at once: see informerHealth), the wait reads the
// Slice itself every WatchProbeEvery, so that it sees a verdict however
// long client-go backs off; once those reads have failed for the
// WatchFailLimit with no success between, it ends with a
// WatchFailingError. A first read that had no answer fails at once,
// naming the host: a wait never sits on a host that does not answer.
func (r *Reads) AwaitSlice(ctx context.Context, slices dynamic.ResourceInterface, name string, handle sliceHandler) error {
	inv, err := r.Inventory(ctx)
	if err != nil {
		return err
	}
	return inv.awaitSlice(ctx, slices, name, handle, newWatchHealth(r.opts))
}

// sliceChange is a change of the followed Slice, as the informer saw it;
// unknown is a delete whose last state the informer did not see (a relist
// found the Slice gone).
type sliceChange struct {
	obj            *unstructured.Unstructured
	deleted        bool
	unknownDeleted bool
}

// sliceSubscription queues the informer's changes of one Slice.
type sliceSubscription struct {
	mu      sync.Mutex
	changes []sliceChange
	signal  chan struct{}
	remove  func()
}

func (s *sliceSubscription) push(c sliceChange) {
	s.mu.Lock()
	s.changes = append(s.changes, c)
	s.mu.Unlock()
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

func (s *sliceSubscription) take() []sliceChange {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.changes
	s.changes = nil
	return out
}

// subscribeSlice starts the inventory and queues every change the
// informer sees of the Slice name, from its current state on. An
// inventory with no informer (Fixed) queues nothing: its waits read.
func (inv *Inventory) subscribeSlice(ctx context.Context, name string) (*sliceSubscription, error) {
	if err := inv.StartAll(ctx); err != nil {
		return nil, err
	}
	sub := &sliceSubscription{signal: make(chan struct{}, 1), remove: func() {}}
	inv.mu.Lock()
	informer := inv.sliceInformer
	inv.mu.Unlock()
	if informer == nil {
		return sub, nil
	}
	of := func(obj any) (*unstructured.Unstructured, bool) {
		u, ok := obj.(*unstructured.Unstructured)
		return u, ok && u.GetName() == name
	}
	reg, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if u, ok := of(obj); ok {
				sub.push(sliceChange{obj: u})
			}
		},
		UpdateFunc: func(_, obj any) {
			if u, ok := of(obj); ok {
				sub.push(sliceChange{obj: u})
			}
		},
		DeleteFunc: func(obj any) {
			if u, ok := of(obj); ok {
				sub.push(sliceChange{obj: u, deleted: true})
			} else if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				if u, ok := of(d.Obj); ok {
					sub.push(sliceChange{obj: u, deleted: true, unknownDeleted: true})
				}
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("following Slice %s: %w", name, err)
	}
	sub.remove = func() { _ = informer.RemoveEventHandler(reg) }
	return sub, nil
}

// following says whether the inventory's informer of the Slices follows
// the cluster now, and the last error of its failures when it does not.
func (inv *Inventory) following() (bool, error) {
	inv.mu.Lock()
	informer, health := inv.sliceInformer, inv.sliceHealth
	inv.mu.Unlock()
	if informer == nil || health == nil {
		return false, nil
	}
	failing, err := health.failing()
	return !failing, err
}

// awaitSlice is AwaitSlice on the inventory, with the run of failures
// health follows.
func (inv *Inventory) awaitSlice(ctx context.Context, slices dynamic.ResourceInterface, name string, handle sliceHandler, health *watchHealth) error {
	sub, err := inv.subscribeSlice(ctx, name)
	if err != nil {
		return err
	}
	defer sub.remove()
	w := &sliceWait{slices: slices, name: name, handle: handle, health: health}
	if done, err := w.read(ctx, true); done || err != nil {
		return err
	}
	probe := time.NewTicker(health.probeEvery)
	defer probe.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for Slice %s: %w", name, ctx.Err())
		case <-sub.signal:
			for _, c := range sub.take() {
				if done, err := w.change(ctx, c); done || err != nil {
					return err
				}
			}
		case <-probe.C:
			if ok, why := inv.following(); ok {
				health.ok()
				continue
			} else {
				tflog.Debug(ctx, "Slice wait: the inventory's watch is failing; reading the Slice", map[string]any{"slice": name, "error": fmt.Sprint(why)})
			}
			if done, err := w.read(ctx, false); done || err != nil {
				return err
			}
		}
	}
}

// sliceWait is one wait's view of its Slice.
type sliceWait struct {
	slices dynamic.ResourceInterface
	name   string
	handle sliceHandler
	health *watchHealth
	// last is the Slice as last handed to handle; floor its resource
	// version: a change older than it is the inventory trailing the
	// cluster, and is passed over.
	last  *unstructured.Unstructured
	floor string
}

// read reads the Slice and hands it to handle. A failure that waiting may
// cure counts against the wait's WatchFailLimit; a first read with no
// answer, and errors that waiting does not cure, end the wait.
func (w *sliceWait) read(ctx context.Context, first bool) (bool, error) {
	u, err := w.slices.Get(ctx, w.name, metav1.GetOptions{})
	switch {
	case err == nil:
		w.health.ok()
		return w.deliver(u, false)
	case objectNotFound(err, w.name):
		w.health.ok()
		return w.deliver(nil, true)
	case ctx.Err() != nil || permanentKubeError(err) || (first && errors.Is(err, kernel.ErrNoAnswer)):
		return false, fmt.Errorf("reading Slice %s: %w", w.name, err)
	}
	if ferr := w.health.failed(err); ferr != nil {
		tflog.Warn(ctx, "Slice wait: the cluster stopped answering", map[string]any{"slice": w.name, "error": ferr.Error()})
		return false, fmt.Errorf("reading Slice %s: %w", w.name, ferr)
	}
	return false, nil
}

// change hands the informer's change to handle, unless it is older than
// what the wait saw. A delete whose last state the informer did not see
// is read again.
func (w *sliceWait) change(ctx context.Context, c sliceChange) (bool, error) {
	if c.unknownDeleted {
		return w.read(ctx, false)
	}
	rv := c.obj.GetResourceVersion()
	if older(rv, w.floor) || (!c.deleted && rv != "" && rv == w.floor && w.last != nil) {
		return false, nil // older than what the wait saw, or the same
	}
	return w.deliver(c.obj, c.deleted)
}

// deliver hands handle the Slice (nil and gone: not there).
func (w *sliceWait) deliver(u *unstructured.Unstructured, gone bool) (bool, error) {
	if u != nil {
		w.last, w.floor = u, u.GetResourceVersion()
	} else {
		u = w.last
	}
	return w.handle(u, gone)
}

// older says whether resource version a is older than b. Versions that
// are not the API server's integers are not compared (GKE's and the
// sandbox's are).
func older(a, b string) bool {
	if b == "" {
		return false
	}
	c, err := resourceversion.CompareResourceVersion(a, b)
	return err == nil && c < 0
}

// objectNotFound says whether err is the API server's answer that the
// named object does not exist, as against a 404 of the whole resource
// (the Slice API not served), which waiting does not cure.
func objectNotFound(err error, name string) bool {
	var status apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d != nil && d.Name == name
}
