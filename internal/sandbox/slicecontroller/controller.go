// Package slicecontroller emulates GKE's slice controller: it drives
// Slices through the documented lifecycle, labels the nodes of formed
// slices and follows the health of their partitions.
package slicecontroller

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/keyqueue"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Timing of the simulated controller.
const (
	sliceRetryInterval = 500 * time.Millisecond
	sliceStepDelay     = 50 * time.Millisecond // between DEACTIVATING, INCOMPLETE and release
	partitionIndex     = "partition"
)

// Cloud is what the controller asks of the emulated cloud: the place of a
// partition and the faults it honours.
type Cloud interface {
	// PartitionPlace is the reservation and the block (as
	// "reservation/block") of the sub-block that holds the partition, and
	// whether one does.
	PartitionPlace(id string) (reservation, block string, ok bool)
	// SliceActivationDelay is how long a Slice stays ACTIVATING.
	SliceActivationDelay() time.Duration
	// AfterActivation calls then once the slice has stayed ACTIVATING for
	// delay (above 0), in a goroutine of its own.
	AfterActivation(slice string, delay time.Duration, then func())
	// TakeFormationFailure reports whether a formation failure is to be
	// injected, and uses it up.
	TakeFormationFailure() bool
	// HoldSliceFinalizers reports whether the controller keeps the
	// finalizers of deleted Slices.
	HoldSliceFinalizers() bool
}

// Controller simulates the GKE slice controller: it drives Slices
// through the documented lifecycle, labels the nodes of formed slices and
// follows partition health.
type Controller struct {
	cloud  Cloud
	kube   kubernetes.Interface
	dyn    dynamic.Interface
	slices dynamic.NamespaceableResourceInterface

	sliceStore cache.Store
	nodeIndex  cache.Indexer
	queue      keyqueue.Queue

	// forming holds the ACTIVATING slices (by UID) whose activation delay
	// is not over.
	mu      sync.Mutex
	forming map[types.UID]bool
	// activeAt is when each slice (by name) was first marked ACTIVE or
	// ACTIVE_DEGRADED: the start of the status update that stored it.
	activeAt map[string]time.Time
	// announced is, for each slice (by UID), the transition it was last
	// announced with an Event: the version it started from and its state
	// (made on first use).
	announced map[types.UID]string
}

// New is a controller of the Slices of the cluster behind kube and dyn, in
// the cloud; Start runs it.
func New(cloud Cloud, kube kubernetes.Interface, dyn dynamic.Interface) *Controller {
	return &Controller{
		cloud:    cloud,
		kube:     kube,
		dyn:      dyn,
		slices:   dyn.Resource(SliceGVR),
		forming:  map[types.UID]bool{},
		activeAt: map[string]time.Time{},
		queue:    keyqueue.New("slices", 20*time.Millisecond, 2*time.Second),
	}
}

// Start runs the informers and the worker until ctx ends.
func (c *Controller) Start(ctx context.Context) error {
	sliceInformer := dynamicinformer.NewDynamicSharedInformerFactory(c.dyn, 0).ForResource(SliceGVR).Informer()
	nodeInformer := informers.NewSharedInformerFactory(c.kube, 0).Core().V1().Nodes().Informer()
	if err := nodeInformer.AddIndexers(cache.Indexers{partitionIndex: partitionIDs}); err != nil {
		return err
	}
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
	}
	if _, err := sliceInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueue,
		UpdateFunc: func(_, obj any) { enqueue(obj) },
	}); err != nil {
		return err
	}
	// A change of any partition node may change a slice's state.
	allSlices := func(any) {
		for _, key := range sliceInformer.GetStore().ListKeys() {
			c.queue.Add(key)
		}
	}
	if _, err := nodeInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    allSlices,
		UpdateFunc: func(old, obj any) { nodeChanged(old, obj, allSlices) },
		DeleteFunc: allSlices,
	}); err != nil {
		return err
	}
	c.sliceStore, c.nodeIndex = sliceInformer.GetStore(), nodeInformer.GetIndexer()
	go sliceInformer.Run(ctx.Done())
	go nodeInformer.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), sliceInformer.HasSynced, nodeInformer.HasSynced) {
		return fmt.Errorf("informer caches did not sync")
	}
	c.queue.Run(ctx, c.reconcile, nil)
	return nil
}

// partitionIDs indexes a Node by the ID of each of its partitions, of
// every shape (the partitionIndex of the controller's node cache).
func partitionIDs(obj any) ([]string, error) {
	n, ok := obj.(*corev1.Node)
	if !ok {
		return nil, nil
	}
	var ids []string
	for _, shape := range slicerules.PartitionShapes {
		if id := n.Labels[slicerules.PartitionIDLabel(shape)]; id != "" {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// nodeChanged enqueues every slice when a node's readiness or slice-relevant
// labels change (not on heartbeats).
func nodeChanged(old, obj any, enqueueAll func(any)) {
	o, ok1 := old.(*corev1.Node)
	n, ok2 := obj.(*corev1.Node)
	if !ok1 || !ok2 || nodeReady(o) != nodeReady(n) || o.Labels[wellknown.LabelSlice] != n.Labels[wellknown.LabelSlice] {
		enqueueAll(obj)
		return
	}
	for _, shape := range slicerules.PartitionShapes {
		if l := slicerules.PartitionStateLabel(shape); o.Labels[l] != n.Labels[l] {
			enqueueAll(obj)
			return
		}
	}
}

// View is what the controller reads from a Slice: the object, its name,
// topology and partitions, its state (the Ready condition's reason) and
// whether it asks to be retried on failure.
type View struct {
	Obj        *unstructured.Unstructured
	Name       string
	Topology   string
	Partitions []string
	State      string
	Retry      bool
}

// ViewOf is what the controller reads from the Slice obj.
func ViewOf(obj *unstructured.Unstructured) View {
	v := View{Obj: obj, Name: obj.GetName()}
	v.Topology, _, _ = unstructured.NestedString(obj.Object, "spec", "topology")
	v.Partitions, _, _ = unstructured.NestedStringSlice(obj.Object, "spec", "partitionIds")
	v.State, _ = ReadyReason(obj)
	v.Retry = obj.GetAnnotations()[wellknown.AnnotationRetryOnFailure] == "true"
	return v
}

// ReadyReason returns the reason and message of the Ready condition.
func ReadyReason(obj *unstructured.Unstructured) (string, string) {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == ConditionReady {
			reason, _ := m["reason"].(string)
			msg, _ := m["message"].(string)
			return reason, msg
		}
	}
	return "", ""
}

// reconcile advances one slice by one step and says when to look again.
func (c *Controller) reconcile(ctx context.Context, key string) (time.Duration, error) {
	item, exists, err := c.sliceStore.GetByKey(key)
	if err != nil || !exists {
		return 0, err
	}
	stored, ok := item.(*unstructured.Unstructured)
	if !ok {
		return 0, fmt.Errorf("slice cache holds %T", item)
	}
	obj := stored.DeepCopy()
	v := ViewOf(obj)

	if obj.GetDeletionTimestamp() != nil {
		c.mu.Lock()
		delete(c.activeAt, obj.GetName()) // a new slice of the same name starts afresh
		delete(c.announced, obj.GetUID())
		c.mu.Unlock()
		return c.deactivate(ctx, v)
	}
	if !hasFinalizer(obj) {
		obj.SetFinalizers(append(obj.GetFinalizers(), wellknown.SliceFinalizer))
		_, err := c.slices.Update(ctx, obj, metav1.UpdateOptions{})
		return 0, ignoreConflict(err)
	}

	activation := c.cloud.SliceActivationDelay()

	switch v.State {
	case "":
		return 0, c.setState(ctx, v, ReasonSliceNotCreated, "The slice controller is checking the slice's partitions.")
	case ReasonSliceNotCreated:
		if problem := c.checkPrerequisites(v); problem != "" {
			return c.creationFailed(ctx, v, problem)
		}
		// The delay starts once ACTIVATING is written: a view that trails
		// the write (a cache behind it) loses the write, and starts none.
		return 0, c.setStateThen(ctx, v, ReasonActivating, "Forming the ICI links of the slice.", func() { c.startForming(v, activation) })
	case ReasonSliceCreationFailed:
		if !v.Retry {
			return 0, nil
		}
		if problem := c.checkPrerequisites(v); problem != "" {
			_, msg := ReadyReason(obj)
			if msg != problem {
				return c.creationFailed(ctx, v, problem)
			}
			return sliceRetryInterval, nil
		}
		return 0, c.transitionThen(ctx, v, corev1.EventTypeNormal, ReasonActivating, "The slice's prerequisites are met now; forming its ICI links (retry).",
			func() { c.startForming(v, activation) })
	case ReasonActivating:
		if c.stillForming(v) {
			return 0, nil // the delay's end queues the slice again
		}
		return c.activate(ctx, v)
	case ReasonActive, ReasonActiveDegraded:
		return 0, c.followHealth(ctx, v)
	case ReasonDeactivating:
		return 0, c.finishDismantling(ctx, v)
	}
	return 0, nil // FAILED is final; INCOMPLETE only on deletion
}

func hasFinalizer(obj *unstructured.Unstructured) bool {
	for _, f := range obj.GetFinalizers() {
		if f == wellknown.SliceFinalizer {
			return true
		}
	}
	return false
}

// ignoreConflict treats a write conflict as done: the informer brings the
// newer object and the slice is reconciled again.
func ignoreConflict(err error) error {
	if apierrors.IsConflict(err) {
		return nil
	}
	return err
}
