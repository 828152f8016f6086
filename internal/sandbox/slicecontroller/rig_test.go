package slicecontroller

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The controller's tests run it over client-go's fakes: a fake clientset
// for Nodes and Events, a fake dynamic client for Slices (which keeps a
// deleted Slice while it has finalizers, as the API server does), and a
// fake Cloud whose activation delays the test holds and ends. Most tests
// drive reconcile one step at a time over caches they fill from the
// fakes (a rig), so that they assert each state the slice passes through
// and each Event, in order; one test runs Start, informers and all.

// fakeCloud is the controller's Cloud: where each partition is, the
// activation delay, and the faults, as a test sets them. AfterActivation
// hands each activation delay to the test (activations) instead of a
// timer.
type fakeCloud struct {
	mu                sync.Mutex
	places            map[string][2]string // partition -> reservation, "reservation/block"
	activation        time.Duration
	formationFailures int
	holdFinalizers    bool
	activations       chan activation
}

// activation is one slice's activation delay, held until the test calls
// then.
type activation struct {
	slice string
	delay time.Duration
	then  func()
}

func newFakeCloud() *fakeCloud {
	return &fakeCloud{places: map[string][2]string{}, activations: make(chan activation, 16)}
}

func (f *fakeCloud) PartitionPlace(id string) (string, string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.places[id]
	return p[0], p[1], ok
}

func (f *fakeCloud) SliceActivationDelay() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.activation
}

func (f *fakeCloud) AfterActivation(slice string, delay time.Duration, then func()) {
	f.activations <- activation{slice: slice, delay: delay, then: then}
}

func (f *fakeCloud) TakeFormationFailure() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.formationFailures <= 0 {
		return false
	}
	f.formationFailures--
	return true
}

func (f *fakeCloud) HoldSliceFinalizers() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.holdFinalizers
}

// place says the partition is in reservation's block.
func (f *fakeCloud) place(id, reservation, block string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.places[id] = [2]string{reservation, reservation + "/" + block}
}

// newFakeSlices is a fake dynamic client of Slices that writes them as
// the API server does: each write gives the Slice a new resourceVersion,
// and an update from another version is a conflict; an update of the
// status subresource changes the status only, any other update all but
// the status; a Slice with finalizers that is deleted gets a deletion
// timestamp and stays until an update takes its last finalizer off.
func newFakeSlices() *dynamicfake.FakeDynamicClient {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{SliceGVR: "SliceList"})
	tracker := dyn.Tracker()
	var version atomic.Int64
	nextVersion := func(u *unstructured.Unstructured) { u.SetResourceVersion(strconv.FormatInt(version.Add(1), 10)) }
	stored := func(name string) (*unstructured.Unstructured, error) {
		obj, err := tracker.Get(SliceGVR, "", name)
		if err != nil {
			return nil, err
		}
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return nil, fmt.Errorf("the tracker holds %T", obj)
		}
		return u.DeepCopy(), nil
	}
	dyn.PrependReactor("create", "slices", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if u, ok := a.(k8stesting.CreateAction).GetObject().(*unstructured.Unstructured); ok {
			nextVersion(u) // stored by the tracker, next in the chain
		}
		return false, nil, nil
	})
	dyn.PrependReactor("update", "slices", func(a k8stesting.Action) (bool, runtime.Object, error) {
		in, ok := a.(k8stesting.UpdateAction).GetObject().(*unstructured.Unstructured)
		if !ok {
			return false, nil, nil
		}
		old, err := stored(in.GetName())
		if err != nil {
			return true, nil, err
		}
		if in.GetResourceVersion() != old.GetResourceVersion() {
			return true, nil, apierrors.NewConflict(SliceGVR.GroupResource(), in.GetName(),
				fmt.Errorf("the object has been modified: version %s, stored %s", in.GetResourceVersion(), old.GetResourceVersion()))
		}
		out := old
		if a.GetSubresource() == "status" {
			out.Object["status"] = in.Object["status"]
		} else {
			out = in.DeepCopy()
			out.SetDeletionTimestamp(old.GetDeletionTimestamp())
			if status, ok := old.Object["status"]; ok {
				out.Object["status"] = status
			} else {
				delete(out.Object, "status")
			}
		}
		nextVersion(out)
		if out.GetDeletionTimestamp() != nil && len(out.GetFinalizers()) == 0 {
			return true, out, tracker.Delete(SliceGVR, "", out.GetName())
		}
		return true, out, tracker.Update(SliceGVR, out, "")
	})
	dyn.PrependReactor("delete", "slices", func(a k8stesting.Action) (bool, runtime.Object, error) {
		u, err := stored(a.(k8stesting.DeleteAction).GetName())
		if err != nil {
			return true, nil, err
		}
		if len(u.GetFinalizers()) == 0 {
			return false, nil, nil // deleted at once
		}
		if u.GetDeletionTimestamp() == nil {
			now := metav1.Now()
			u.SetDeletionTimestamp(&now)
			nextVersion(u)
			return true, nil, tracker.Update(SliceGVR, u, "")
		}
		return true, nil, nil
	})
	return dyn
}

// rig is a controller whose caches the test fills from the fakes (sync)
// and whose reconcile it calls itself (step).
type rig struct {
	t     *testing.T
	c     *Controller
	cloud *fakeCloud
	kube  *kubefake.Clientset
	dyn   *dynamicfake.FakeDynamicClient
}

func newRig(t *testing.T) *rig {
	t.Helper()
	cloud := newFakeCloud()
	kube := kubefake.NewClientset()
	dyn := newFakeSlices()
	c := New(cloud, kube, dyn)
	c.sliceStore = cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
	c.nodeIndex = cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{partitionIndex: partitionIDs})
	t.Cleanup(c.queue.ShutDown)
	return &rig{t: t, c: c, cloud: cloud, kube: kube, dyn: dyn}
}

// sync makes the controller's caches hold what the fakes hold, as its
// informers would once caught up.
func (r *rig) sync() {
	r.t.Helper()
	ctx := context.Background()
	slices, err := r.dyn.Resource(SliceGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	items := make([]any, 0, len(slices.Items))
	for i := range slices.Items {
		items = append(items, &slices.Items[i])
	}
	if err := r.c.sliceStore.Replace(items, ""); err != nil {
		r.t.Fatal(err)
	}
	nodes, err := r.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	items = items[:0]
	for i := range nodes.Items {
		items = append(items, &nodes.Items[i])
	}
	if err := r.c.nodeIndex.Replace(items, ""); err != nil {
		r.t.Fatal(err)
	}
}

// step reconciles the slice once over caches in sync with the fakes, and
// returns when the controller asks to look again.
func (r *rig) step(name string) time.Duration {
	r.t.Helper()
	r.sync()
	after, err := r.c.reconcile(context.Background(), name)
	if err != nil {
		r.t.Fatalf("reconcile %s: %v", name, err)
	}
	return after
}

// stepUntil steps the slice until its state is want, and returns the
// states it passed through on the way (want last). It fails the test
// after ten steps.
func (r *rig) stepUntil(name, want string) []string {
	r.t.Helper()
	var states []string
	for range 10 {
		r.step(name)
		state := r.state(name)
		if len(states) == 0 || states[len(states)-1] != state {
			states = append(states, state)
		}
		if state == want {
			return states
		}
	}
	r.t.Fatalf("slice %s went through %v, never %s", name, states, want)
	return nil
}

// slice reads the Slice from the fake, or nil when it is gone.
func (r *rig) slice(name string) *unstructured.Unstructured {
	r.t.Helper()
	obj, err := r.dyn.Resource(SliceGVR).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		r.t.Fatal(err)
	}
	return obj
}

// state is the slice's state (its Ready condition's reason).
func (r *rig) state(name string) string {
	r.t.Helper()
	reason, _ := ReadyReason(r.slice(name))
	return reason
}

// message is the message of the slice's Ready condition.
func (r *rig) message(name string) string {
	r.t.Helper()
	_, msg := ReadyReason(r.slice(name))
	return msg
}

// event is one Event the controller recorded: its type, reason and the
// slice it is about.
type event struct{ slice, typ, reason, message string }

func (e event) String() string { return e.slice + " " + e.typ + " " + e.reason }

// events are the Events the controller recorded, in order.
func (r *rig) events() []event {
	var out []event
	for _, a := range r.kube.Actions() {
		c, ok := a.(k8stesting.CreateAction)
		if !ok || a.GetResource().Resource != "events" {
			continue
		}
		if e, ok := c.GetObject().(*corev1.Event); ok {
			out = append(out, event{slice: e.InvolvedObject.Name, typ: e.Type, reason: e.Reason, message: e.Message})
		}
	}
	return out
}

// wantEvents checks the Events recorded, in order, as "slice type reason".
func (r *rig) wantEvents(want ...string) {
	r.t.Helper()
	got := make([]string, 0, len(r.events()))
	for _, e := range r.events() {
		got = append(got, e.String())
	}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		r.t.Errorf("events [%s]; want [%s]", strings.Join(got, "; "), strings.Join(want, "; "))
	}
}

// createSlice creates a Slice of the topology over the partitions.
func (r *rig) createSlice(name, topology string, retry bool, partitions ...string) {
	r.t.Helper()
	ids := make([]any, len(partitions))
	for i, p := range partitions {
		ids[i] = p
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "accelerator.gke.io/v1beta1", "kind": "Slice",
		"metadata": map[string]any{"name": name, "uid": "uid-" + name, "generation": int64(1)},
		"spec":     map[string]any{"type": slicerules.SliceType, "topology": topology, "partitionIds": ids},
	}}
	if retry {
		obj.SetAnnotations(map[string]string{wellknown.AnnotationRetryOnFailure: "true"})
	}
	if _, err := r.dyn.Resource(SliceGVR).Create(context.Background(), obj, metav1.CreateOptions{}); err != nil {
		r.t.Fatal(err)
	}
}

// deleteSlice deletes slice s (it stays while it has finalizers).
func (r *rig) deleteSlice() {
	r.t.Helper()
	if err := r.dyn.Resource(SliceGVR).Delete(context.Background(), "s", metav1.DeleteOptions{}); err != nil {
		r.t.Fatal(err)
	}
}

// addPartition registers the nodes of a partition of the shape, each with
// the partition's ID and state labels of the shape, all Ready; the cloud
// places the partition in block of reservation "res".
func (r *rig) addPartition(id, shape, state, block string) []string {
	r.t.Helper()
	r.cloud.place(id, "res", block)
	names := make([]string, slicerules.HostsOfShape(shape))
	for h := range names {
		names[h] = fmt.Sprintf("node-%s-%02d", id, h)
		n := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: names[h], Labels: map[string]string{
				slicerules.PartitionIDLabel(shape):    id,
				slicerules.PartitionStateLabel(shape): state,
			}},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
		}
		if _, err := r.kube.CoreV1().Nodes().Create(context.Background(), n, metav1.CreateOptions{}); err != nil {
			r.t.Fatal(err)
		}
	}
	return names
}

// setPartitionState sets the state label on every node of the 4x4x4
// partition, as the emulated GKE does when its hosts' health changes.
func (r *rig) setPartitionState(id, state string) {
	r.t.Helper()
	label := slicerules.PartitionStateLabel(slicerules.SubBlockShape)
	for _, n := range r.nodesOf(id, slicerules.SubBlockShape) {
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, label, state)
		if _, err := r.kube.CoreV1().Nodes().Patch(context.Background(), n.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			r.t.Fatal(err)
		}
	}
}

// setReady sets the Ready condition of the node.
func (r *rig) setReady(name string, ready bool) {
	r.t.Helper()
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	patch := fmt.Sprintf(`{"status":{"conditions":[{"type":"Ready","status":%q}]}}`, status)
	if _, err := r.kube.CoreV1().Nodes().Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
		r.t.Fatal(err)
	}
}

// nodesOf are the nodes of the partition of the shape, from the fake.
func (r *rig) nodesOf(id, shape string) []corev1.Node {
	r.t.Helper()
	list, err := r.kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: slicerules.PartitionIDLabel(shape) + "=" + id})
	if err != nil {
		r.t.Fatal(err)
	}
	return list.Items
}

// wantSliceLabels checks that every node of the partition carries the
// slice labels of slice (none when slice is "").
func (r *rig) wantSliceLabels(id, shape, slice, topology string) {
	r.t.Helper()
	for _, n := range r.nodesOf(id, shape) {
		if n.Labels[wellknown.LabelSlice] != slice || n.Labels[wellknown.LabelSliceTopology] != topology {
			r.t.Errorf("node %s slice labels %q, %q; want %q, %q", n.Name,
				n.Labels[wellknown.LabelSlice], n.Labels[wellknown.LabelSliceTopology], slice, topology)
		}
	}
}

// labelNode sets one label of the node.
func (r *rig) labelNode(name, key, value string) {
	r.t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, key, value)
	if _, err := r.kube.CoreV1().Nodes().Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		r.t.Fatal(err)
	}
}

// wantNoNodeOfS checks that no node carries the slice label of slice s.
func (r *rig) wantNoNodeOfS() {
	r.t.Helper()
	nodes, err := r.kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: wellknown.LabelSlice + "=s"})
	if err != nil {
		r.t.Fatal(err)
	}
	for _, n := range nodes.Items {
		r.t.Errorf("node %s is labelled for slice s", n.Name)
	}
}
