package clusterread

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// Bounds of the delay before a watch that ended is opened again. client-go
// reflectors back off up to 30 s when watches keep ending early; a wait
// for one object must see a verdict soon after it comes, however often the
// connection is cut (a load balancer, an API server restart).
const (
	watchReconnectInitial = 50 * time.Millisecond
	watchReconnectMax     = time.Second
)

// reconnectWait waits d, or until ctx ends.
func reconnectWait(ctx context.Context, d time.Duration) error {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// objectHandler receives the object as the list and the watch report
// it: obj is nil when the list finds none; gone is true when it is not
// there (not listed, or deleted). It says when the wait is done.
type objectHandler func(obj *unstructured.Unstructured, gone bool) (done bool, err error)

// WatchObject lists the object named name of the resource objects (a
// Kueue object being deleted: Slices are followed through the inventory,
// see AwaitSlice) and then watches it, resuming a watch that ends from
// the last resource version it saw (listing again when that version is
// too old), with a reconnect delay bounded by watchReconnectMax, until
// handle says done or fails, or ctx ends. Errors that waiting does not
// cure (credentials, permissions, no such API) end it at once. Lists and
// watches that keep failing (refused, reset, 5xx, unanswered: an API
// server that died) end it with a WatchFailingError once they have failed
// for the reads' WatchFailLimit with no success between; while they fail,
// it lists again every WatchProbeEvery, so that watches cut at once by a
// proxy in front of a live server are not taken for a dead one.
func (r *Reads) WatchObject(ctx context.Context, objects dynamic.ResourceInterface, name string, handle objectHandler) error {
	return watchObjectWith(ctx, objects, name, handle, newWatchHealth(r.opts), reconnectWait)
}

// watchObjectWith is WatchObject with the run of failures health follows
// and the wait before a reconnect.
func watchObjectWith(ctx context.Context, objects dynamic.ResourceInterface, name string, handle objectHandler,
	health *watchHealth, wait func(context.Context, time.Duration) error) error {
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	delay := watchReconnectInitial
	pause := func(why string, err error) error {
		tflog.Debug(ctx, "Watch: reconnecting", map[string]any{"object": name, "why": why, "error": fmt.Sprint(err), "delay": delay.String()})
		d := delay
		delay = min(delay*2, watchReconnectMax)
		return wait(ctx, d)
	}
	// failed records a failure, and pauses unless the wait is over.
	failed := func(what, why string, err error) error {
		if ferr := health.failed(err); ferr != nil {
			tflog.Warn(ctx, "Watch: the cluster stopped answering", map[string]any{"object": name, "error": ferr.Error()})
			return fmt.Errorf("%s %s: %w", what, name, ferr)
		}
		return pause(why, err)
	}
	rv, listed := "", false
	for {
		if rv != "" && health.shouldProbe() {
			rv = ""
		}
		if rv == "" {
			next, done, failure, err := listObject(ctx, objects, name, selector, listed, handle)
			switch {
			case failure != nil:
				if err := failed("listing", "list failed", failure); err != nil {
					return err
				}
				continue
			case done || err != nil:
				return err
			}
			listed, rv = true, next
			health.ok()
		}
		opened := time.Now()
		w, err := objects.Watch(ctx, metav1.ListOptions{FieldSelector: selector, ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			switch {
			case ctx.Err() != nil || permanentKubeError(err):
				return fmt.Errorf("watching %s: %w", name, err)
			case apierrors.IsResourceExpired(err) || apierrors.IsGone(err):
				rv = ""
			}
			if err := failed("watching", "watch failed", err); err != nil {
				return err
			}
			continue
		}
		seen, next, done, err := drainObjectWatch(ctx, w, rv, handle)
		w.Stop()
		if done || err != nil {
			return err
		}
		rv = next
		switch {
		case seen:
			delay = watchReconnectInitial
			health.ok()
		case time.Since(opened) >= watchQuickEnd:
			health.ok() // it was answered and stayed open
		default:
			// client-go makes an empty watch of one whose connection was
			// reset: a failure, unless a list says otherwise.
			if err := failed("watching", "watch ended at once", nil); err != nil {
				return err
			}
			continue
		}
		if err := pause("watch ended", nil); err != nil {
			return err
		}
	}
}

// listObject lists the object and hands it to handle, returning the list's
// resource version and handle's verdict. A failure that waiting may cure
// is returned as failure; others (err) end the wait. A first list that
// had no answer fails at once, naming the host: a wait never sits on a
// host that does not answer. Once the object was seen (listed), a silence
// (an API server restarting) is waited out like any dropped connection,
// up to the WatchFailLimit.
func listObject(ctx context.Context, objects dynamic.ResourceInterface, name, selector string, listed bool,
	handle objectHandler) (rv string, done bool, failure, err error) {
	list, err := objects.List(ctx, metav1.ListOptions{FieldSelector: selector})
	if err != nil {
		if ctx.Err() != nil || permanentKubeError(err) || (!listed && errors.Is(err, kernel.ErrNoAnswer)) {
			return "", false, nil, fmt.Errorf("listing %s: %w", name, err)
		}
		return "", false, err, nil
	}
	var obj *unstructured.Unstructured
	if len(list.Items) > 0 {
		obj = &list.Items[0]
	}
	if done, err := handle(obj, obj == nil); done || err != nil {
		return "", done, nil, err
	}
	return list.GetResourceVersion(), false, nil, nil
}

// drainObjectWatch hands the watch's events to handle until the watch ends,
// or ctx does (a watch whose server keeps it open past the request's end
// must not hold the wait). It returns whether any event came, the resource
// version to resume from ("" to list again), and handle's verdict.
func drainObjectWatch(ctx context.Context, w watch.Interface, rv string, handle objectHandler) (seen bool, next string, done bool, err error) {
	for {
		var ev watch.Event
		var open bool
		select {
		case <-ctx.Done():
			return seen, rv, false, ctx.Err()
		case ev, open = <-w.ResultChan():
		}
		if !open {
			return seen, rv, false, nil
		}
		seen = true
		if ev.Type == watch.Error {
			if status := apierrors.FromObject(ev.Object); apierrors.IsResourceExpired(status) || apierrors.IsGone(status) {
				return seen, "", false, nil
			}
			return seen, rv, false, nil
		}
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		rv = u.GetResourceVersion()
		if ev.Type == watch.Bookmark {
			continue
		}
		if done, err := handle(u, ev.Type == watch.Deleted); done || err != nil {
			return seen, rv, done, err
		}
	}
}

// permanentKubeError is an error of the Kubernetes API that waiting does
// not cure.
func permanentKubeError(err error) bool {
	return apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err) || apierrors.IsNotFound(err) || apierrors.IsMethodNotSupported(err)
}
