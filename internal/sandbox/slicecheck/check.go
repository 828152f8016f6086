// Package slicecheck emulates GKE's slice admission check of the Kueue
// path: its controller, which makes and follows the Slices of Kueue's
// Workloads, and its mutating webhook, which defaults the Jobs, JobSets,
// LeaderWorkerSets and StatefulSets that ask for a slice; both as the
// open-source controller (github.com/AI-Hypercomputer/xpk, slice/) is seen
// to behave, in its words.
package slicecheck

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/keyqueue"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The emulation of GKE's slice admission check (AdmissionCheck
// controllerName accelerator.gke.io/slice) against the real Kueue, as the
// open-source controller behaves: when Kueue has reserved quota for a
// Workload and Topology Aware Scheduling has assigned its pods to nodes, it
// creates one Slice per sub-group (Job) of each pod set that asks for a
// slice, from the partitions of those nodes (event SlicesCreated); it keeps
// the check Pending while they form ("Slices are in states: …"), marks it
// Ready once they are all ACTIVE, and Retry when one FAILS or a Ready
// workload loses a Slice (Kueue then evicts and requeues the Workload, which
// carries the condition TPUSliceFailure with the reason); a Slice that does
// not turn ACTIVE in time is STALE: deleted and made again under the same
// name, the check staying Pending. It deletes the Slices when the Workload
// finishes, is evicted or is deleted, once its pods have ended.

// kueueGroup is the API group of Kueue's resources.
const kueueGroup = "kueue.x-k8s.io"

// KueueSliceController is the controllerName of the AdmissionCheck that
// makes Slices for Kueue's workloads.
const KueueSliceController = "accelerator.gke.io/slice"

var (
	// WorkloadGVR and AdmissionCheckGVR are Kueue's resources the check
	// reads and writes.
	WorkloadGVR       = schema.GroupVersionResource{Group: kueueGroup, Version: "v1beta2", Resource: "workloads"}
	AdmissionCheckGVR = schema.GroupVersionResource{Group: kueueGroup, Version: "v1beta2", Resource: "admissionchecks"}
)

// The check's states as Kueue names them.
const (
	checkPending  = "Pending"
	checkReady    = "Ready"
	checkRetry    = "Retry"
	checkRejected = "Rejected"
)

const (
	// sliceCheckFinalizer keeps a Workload until its Slices are gone.
	sliceCheckFinalizer = KueueSliceController
	// sliceCheckManager is the field manager of the check's status writes.
	sliceCheckManager = KueueSliceController
	// EventSource is the component the check's events on Workloads name.
	EventSource = "slice-workload-controller"
)

// Defaults of Options, the open-source controller's.
const (
	DefaultActivationTimeout = 3 * time.Minute
	DefaultRetryDelay        = 10 * time.Second
	DefaultSliceEventDelay   = time.Second
	DefaultRecheckEvery      = 5 * time.Second
)

// Options tune the check's timing. Zero values take the defaults above.
type Options struct {
	// ActivationTimeout is how long a Slice may stay without a Ready
	// condition, or with one that is False, before it is STALE: deleted
	// and made again under the same name (the check stays Pending).
	ActivationTimeout time.Duration
	// RetryDelay is the requeue delay (whole seconds) the check asks Kueue
	// for when it evicts a Workload.
	RetryDelay time.Duration
	// SliceEventDelay is how long after a Slice's change its Workload is
	// looked at again: the controller batches Slice events so. A Slice
	// deleted under a Ready Workload evicts it this long after.
	SliceEventDelay time.Duration
	// RecheckEvery is how often a Workload whose Slices are still forming
	// is looked at again, to notice STALE ones.
	RecheckEvery time.Duration
	// OwnerPodsPoll is how often the check looks again while the pods of a
	// finished workload are still ending. Default: RecheckEvery.
	OwnerPodsPoll time.Duration
	// Now is the clock Slices are judged STALE by. Default time.Now.
	Now func() time.Time
	// Events records the check's events on Workloads (SlicesCreated,
	// FailedCreateSlice, AdmissionCheckUpdated). Default: Events of the
	// cluster, from EventSource.
	Events record.EventRecorder
}

// withDefaults fills the zero fields; stop ends the default event
// recorder's work (nil when Events was given).
func (o Options) withDefaults(kube kubernetes.Interface) (_ Options, stop func()) {
	o.ActivationTimeout = cmp.Or(o.ActivationTimeout, DefaultActivationTimeout)
	o.RetryDelay = cmp.Or(o.RetryDelay, DefaultRetryDelay)
	o.SliceEventDelay = cmp.Or(o.SliceEventDelay, DefaultSliceEventDelay)
	o.RecheckEvery = cmp.Or(o.RecheckEvery, DefaultRecheckEvery)
	o.OwnerPodsPoll = cmp.Or(o.OwnerPodsPoll, o.RecheckEvery)
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Events == nil {
		b := record.NewBroadcaster()
		b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")})
		o.Events, stop = b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: EventSource}), b.Shutdown
	}
	return o, stop
}

// Check is the emulated admission check controller.
type Check struct {
	kube       kubernetes.Interface
	dyn        dynamic.Interface
	nodeLabels func(node string) map[string]string
	log        *log.Logger
	opts       Options
	stopEvents func() // nil, or what ends the default event recorder

	workloads, checks, slices cache.Store
	queue                     keyqueue.Queue
}

// admissionCheckKey prefixes the queue keys of AdmissionChecks (Workload
// keys are namespace/name).
const admissionCheckKey = "admissioncheck:"

// New is the check of the Workloads of the cluster behind kube and dyn;
// nodeLabels are the labels of a node, by name, and logTo hears of its
// work. Start runs it.
func New(kube kubernetes.Interface, dyn dynamic.Interface, nodeLabels func(string) map[string]string, logTo *log.Logger, opts Options) *Check {
	opts, stop := opts.withDefaults(kube)
	return &Check{
		kube: kube, dyn: dyn, nodeLabels: nodeLabels, log: logTo, opts: opts, stopEvents: stop,
		queue: keyqueue.New("slice-admission-check", 50*time.Millisecond, 5*time.Second),
		// Until Start replaces them with its informers' stores.
		workloads: cache.NewStore(cache.MetaNamespaceKeyFunc),
		checks:    cache.NewStore(cache.MetaNamespaceKeyFunc),
		slices:    cache.NewStore(cache.MetaNamespaceKeyFunc),
	}
}

// Start runs the informers and the worker until ctx ends; the first lists
// must complete within syncCtx.
func (c *Check) Start(ctx, syncCtx context.Context) error {
	factory := dynamicinformer.NewDynamicSharedInformerFactory(c.dyn, 0)
	wlInformer := factory.ForResource(WorkloadGVR).Informer()
	acInformer := factory.ForResource(AdmissionCheckGVR).Informer()
	sliceInformer := factory.ForResource(slicecontroller.SliceGVR).Informer()
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(key)
		}
	}
	enqueueCheck := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(admissionCheckKey + key)
		}
	}
	// A Slice's change concerns the Workload that owns it, a moment later
	// (the controller batches Slice events so).
	enqueueOwner := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if u, ok := obj.(*unstructured.Unstructured); ok {
			a := u.GetAnnotations()
			if ns, name := a[wellknown.AnnotationOwnerWorkloadNamespace], a[wellknown.AnnotationOwnerWorkloadName]; ns != "" && name != "" {
				c.queue.AddAfter(ns+"/"+name, c.opts.SliceEventDelay)
			}
		}
	}
	for _, h := range []struct {
		inf cache.SharedIndexInformer
		fn  func(any)
	}{{wlInformer, enqueue}, {acInformer, enqueueCheck}, {sliceInformer, enqueueOwner}} {
		fn := h.fn
		if _, err := h.inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: fn, UpdateFunc: func(_, obj any) { fn(obj) }, DeleteFunc: fn,
		}); err != nil {
			return err
		}
	}
	c.workloads, c.checks, c.slices = wlInformer.GetStore(), acInformer.GetStore(), sliceInformer.GetStore()
	if c.stopEvents != nil {
		context.AfterFunc(ctx, c.stopEvents)
	}
	factory.Start(ctx.Done())
	for gvr, ok := range factory.WaitForCacheSync(syncCtx.Done()) {
		if !ok {
			return fmt.Errorf("the slice admission check's first list of %s did not complete within 30s: %w", gvr.Resource, context.Cause(syncCtx))
		}
	}
	c.queue.Run(ctx, c.handle, func(key string, err error) { c.log.Printf("%s: %v", key, err) })
	return nil
}

// handle reconciles one key of the queue: an AdmissionCheck's or a
// Workload's.
func (c *Check) handle(ctx context.Context, key string) (time.Duration, error) {
	if name, ok := strings.CutPrefix(key, admissionCheckKey); ok {
		return 0, c.activateCheck(ctx, name)
	}
	return c.reconcile(ctx, key)
}

// ActiveMessage is the message of the Active condition the check writes on
// its AdmissionChecks.
const ActiveMessage = "The admission check is active"

// activateCheck marks an AdmissionCheck of this controller Active, as its
// controller does: Kueue holds back the ClusterQueues of an inactive check.
func (c *Check) activateCheck(ctx context.Context, name string) error {
	item, exists, err := c.checks.GetByKey(name)
	if err != nil || !exists {
		return err
	}
	ac, _ := item.(*unstructured.Unstructured)
	if ctrl, _, _ := unstructured.NestedString(ac.Object, "spec", "controllerName"); ctrl != KueueSliceController {
		return nil
	}
	// As the controller: written once, when the condition is not True.
	if ConditionTrue(ac, "Active") {
		return nil
	}
	patch := map[string]any{
		"apiVersion": ac.GetAPIVersion(), "kind": "AdmissionCheck",
		"metadata": map[string]any{"name": ac.GetName()},
		"status": map[string]any{"conditions": []any{map[string]any{
			"type": "Active", "status": "True", "reason": "Active", "message": ActiveMessage,
			"observedGeneration": ac.GetGeneration(), "lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}}},
	}
	return c.applyStatus(ctx, c.dyn.Resource(AdmissionCheckGVR), ac.GetName(), patch)
}

func (c *Check) applyStatus(ctx context.Context, res dynamic.ResourceInterface, name string, patch map[string]any) error {
	body, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	force := true
	_, err = res.Patch(ctx, name, types.ApplyPatchType, body, metav1.PatchOptions{FieldManager: sliceCheckManager, Force: &force}, "status")
	return err
}
