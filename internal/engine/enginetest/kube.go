package enginetest

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// NewKube is a fake clientset holding nodes. Its node watches behave as
// the API server's do (see WatchLikeTheAPIServer). watching is closed once
// the first node watch is registered, so that a test changes nodes only
// when the engine cannot miss the change.
func NewKube(nodes ...*corev1.Node) (kube *fake.Clientset, watching <-chan struct{}) {
	objs := make([]runtime.Object, len(nodes))
	for i, n := range nodes {
		objs[i] = n
	}
	kube = fake.NewClientset(objs...)
	ch := make(chan struct{})
	var once sync.Once
	nodeKind := corev1.SchemeGroupVersion.WithKind("Node")
	kube.PrependWatchReactor("nodes", func(action k8stesting.Action) (bool, watch.Interface, error) {
		wa, ok := action.(k8stesting.WatchActionImpl)
		if !ok {
			return false, nil, nil
		}
		w, err := WatchLikeTheAPIServer(kube.Tracker(), wa.GetResource(), nodeKind, wa.ListOptions, &corev1.Node{})
		once.Do(func() { close(ch) })
		return true, w, err
	})
	return kube, ch
}

// NewDynamic is a fake dynamic client that serves Slices, with watches
// that behave as the API server's.
func NewDynamic(slices ...runtime.Object) *dynamicfake.FakeDynamicClient {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{kernel.SliceGVR: "SliceList"}, slices...)
	sliceKind := kernel.SliceGVR.GroupVersion().WithKind("Slice")
	dyn.PrependWatchReactor("slices", func(action k8stesting.Action) (bool, watch.Interface, error) {
		wa, ok := action.(k8stesting.WatchActionImpl)
		if !ok {
			return false, nil, nil
		}
		bookmark := &unstructured.Unstructured{}
		w, err := WatchLikeTheAPIServer(dyn.Tracker(), wa.GetResource(), sliceKind, wa.ListOptions, bookmark)
		return true, w, err
	})
	return dyn
}

// WatchLikeTheAPIServer watches a tracker's objects of one kind as the API
// server does: it honours the label selector, and with SendInitialEvents
// (client-go's WatchList, on by default since v0.35) it first streams the
// matching objects and then the initial-events-end bookmark, which it
// makes from bookmark (an empty object of the kind).
func WatchLikeTheAPIServer(tracker k8stesting.ObjectTracker, gvr schema.GroupVersionResource, kind schema.GroupVersionKind, opts metav1.ListOptions, bookmark runtime.Object) (watch.Interface, error) {
	selector, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, err
	}
	inner, err := tracker.Watch(gvr, "")
	if err != nil {
		return nil, err
	}
	var initial []runtime.Object
	streamInitial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	if streamInitial {
		list, err := tracker.List(gvr, kind, "")
		if err == nil {
			initial, err = meta.ExtractList(list)
		}
		if err != nil {
			inner.Stop()
			return nil, err
		}
		m, err := meta.Accessor(bookmark)
		if err != nil {
			inner.Stop()
			return nil, err
		}
		m.SetResourceVersion("1")
		m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	}
	w := &selectedWatch{inner: inner, out: make(chan watch.Event), stop: make(chan struct{})}
	matches := func(o runtime.Object) bool {
		m, err := meta.Accessor(o)
		return err == nil && selector.Matches(labels.Set(m.GetLabels()))
	}
	go func() {
		defer close(w.out)
		send := func(e watch.Event) bool {
			select {
			case w.out <- e:
				return true
			case <-w.stop:
				return false
			}
		}
		for _, o := range initial {
			if matches(o) && !send(watch.Event{Type: watch.Added, Object: o}) {
				return
			}
		}
		if streamInitial && !send(watch.Event{Type: watch.Bookmark, Object: bookmark}) {
			return
		}
		for e := range inner.ResultChan() {
			if matches(e.Object) && !send(e) {
				return
			}
		}
	}()
	return w, nil
}

// selectedWatch passes on the events of inner that a selector matches.
type selectedWatch struct {
	inner    watch.Interface
	out      chan watch.Event
	stop     chan struct{}
	stopOnce sync.Once
}

func (w *selectedWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stop)
		w.inner.Stop()
	})
}

func (w *selectedWatch) ResultChan() <-chan watch.Event { return w.out }
