package clusterread

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// NodeWatch follows the nodes that match a selector: an informer (a
// list, then a watch) that signals every change, and a list or watch that
// had no answer.
type NodeWatch struct {
	store   cache.Store
	stop    chan struct{}
	changed chan struct{}
	listed  *informerSync
}

// List is the nodes as last seen.
func (w *NodeWatch) List() []any { return w.store.List() }

// Changed receives after every change of the nodes, and after a list or
// watch that had no answer.
func (w *NodeWatch) Changed() <-chan struct{} { return w.changed }

// Stop ends the watch.
func (w *NodeWatch) Stop() { close(w.stop) }

// Err is a ClusterAccessError when the API server did not answer the
// first list of the nodes (and none has succeeded since), else nil.
func (w *NodeWatch) Err() error {
	if _, err := w.listed.lastError(); err != nil && !w.listed.synced() {
		return &ClusterAccessError{What: "nodes", Host: w.listed.host, Err: err, Advice: "Nothing that reads the cluster can run until it answers"}
	}
	return nil
}

// WatchNodes runs an informer over the nodes matching selector and signals
// every change, and a list or watch that had no answer (recorded with the
// informer's first list); Stop ends it.
func WatchNodes(kube kernel.Cluster, selector string) *NodeWatch {
	changed := make(chan struct{}, 1)
	signal := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	var controller cache.Controller
	listed := newInformerSync("nodes", "nodes", kernel.HostOf(kube), Options{}, func() bool { return controller.HasSynced() })
	noAnswer := func(ctx context.Context, err error) error {
		if errors.Is(err, kernel.ErrNoAnswer) {
			listed.record(ctx, nil, err)
			signal()
		}
		return err
	}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.LabelSelector = selector
			list, err := kube.Nodes().List(ctx, o)
			return list, noAnswer(ctx, err)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = selector
			w, err := kube.Nodes().Watch(ctx, o)
			return w, noAnswer(ctx, err)
		},
	}
	var store cache.Store
	store, controller = cache.NewInformerWithOptions(cache.InformerOptions{
		ListerWatcher: cache.ToListWatcherWithWatchListSemantics(lw, kube),
		ObjectType:    &corev1.Node{},
		Handler: cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { signal() },
			UpdateFunc: func(any, any) { signal() },
			DeleteFunc: func(any) { signal() },
		},
	})
	stop := make(chan struct{})
	go controller.Run(stop)
	return &NodeWatch{store: store, stop: stop, changed: changed, listed: listed}
}
