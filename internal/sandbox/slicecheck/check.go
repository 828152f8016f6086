// Package slicecheck emulates GKE's slice admission check of the Kueue
// path: its controller, which makes and follows the Slices of Kueue's
// Workloads, and its mutating webhook, which defaults the Jobs and JobSets
// that ask for a slice.
package slicecheck

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/keyqueue"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The emulation of GKE's slice admission check (AdmissionCheck
// controllerName accelerator.gke.io/slice) against the real Kueue: when
// Kueue has reserved quota for a Workload and Topology Aware Scheduling has
// assigned its pods to nodes, it creates one Slice per sub-group (Job) of
// each pod set that asks for a slice, from the partitions of those nodes;
// it marks the check Ready once they are all ACTIVE, Retry when one fails
// or does not form in time (Kueue then evicts and requeues the Workload),
// and deletes the Slices when the Workload finishes, is evicted or is
// deleted, once its pods have ended.

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
	// sliceActivationTimeout is how long a Slice may take to become ACTIVE
	// before the check gives up on it (the open-source controller's
	// default).
	sliceActivationTimeout = 3 * time.Minute
	// sliceRetryDelay is the requeue delay the check asks Kueue for after a
	// failure.
	sliceRetryDelay = 10 * time.Second
	// ownerPodsPoll is how often the check looks again while the pods of a
	// finished workload are still ending.
	ownerPodsPoll = time.Second
)

// Check is the emulated admission check controller.
type Check struct {
	kube       kubernetes.Interface
	dyn        dynamic.Interface
	nodeLabels func(node string) map[string]string
	log        *log.Logger

	workloads, checks, slices cache.Store
	queue                     keyqueue.Queue
}

// admissionCheckKey prefixes the queue keys of AdmissionChecks (Workload
// keys are namespace/name).
const admissionCheckKey = "admissioncheck:"

// New is the check of the Workloads of the cluster behind kube and dyn;
// nodeLabels are the labels of a node, by name, and logTo hears of its
// work. Start runs it.
func New(kube kubernetes.Interface, dyn dynamic.Interface, nodeLabels func(string) map[string]string, logTo *log.Logger) *Check {
	return &Check{
		kube: kube, dyn: dyn, nodeLabels: nodeLabels, log: logTo,
		queue: keyqueue.New("slice-admission-check", 50*time.Millisecond, 5*time.Second),
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
	// A Slice's change concerns the Workload that owns it.
	enqueueOwner := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		if u, ok := obj.(*unstructured.Unstructured); ok {
			a := u.GetAnnotations()
			if ns, name := a[wellknown.AnnotationOwnerWorkloadNamespace], a[wellknown.AnnotationOwnerWorkloadName]; ns != "" && name != "" {
				c.queue.Add(ns + "/" + name)
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
	conds, _, _ := unstructured.NestedSlice(ac.Object, "status", "conditions")
	for _, cond := range conds {
		if m, _ := cond.(map[string]any); m["type"] == "Active" && m["status"] == "True" && m["observedGeneration"] == ac.GetGeneration() {
			return nil
		}
	}
	patch := map[string]any{
		"apiVersion": ac.GetAPIVersion(), "kind": "AdmissionCheck",
		"metadata": map[string]any{"name": ac.GetName()},
		"status": map[string]any{"conditions": []any{map[string]any{
			"type": "Active", "status": "True", "reason": "Active", "message": "The slice admission check is active",
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

// wlView is what the check reads of a Workload.
type wlView struct {
	obj                *unstructured.Unstructured
	namespace, name    string
	check              map[string]any // this controller's entry in status.admissionChecks
	podSets            []wlPodSet     // pod sets that ask for a slice and have an assignment
	quotaReserved      bool
	finished, evicted  bool
	inactive, deleting bool
}

// wlPodSet is one pod set that asks for a slice: its topology, its
// sub-groups (Jobs), and the partitions Topology Aware Scheduling assigned.
type wlPodSet struct {
	name       string
	topology   slicerules.Topology
	groups     int
	assignment *wlTopologyAssignment
}

// ConditionTrue reports whether the object has the condition typ with
// status True.
func ConditionTrue(obj *unstructured.Unstructured, typ string) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, cond := range conds {
		if m, _ := cond.(map[string]any); m["type"] == typ {
			return m["status"] == "True"
		}
	}
	return false
}

// view reads a Workload. It returns ok false when no AdmissionCheck of this
// controller applies to it.
func (c *Check) view(obj *unstructured.Unstructured) (wlView, bool, error) {
	v := wlView{obj: obj, namespace: obj.GetNamespace(), name: obj.GetName()}
	checks, _, _ := unstructured.NestedSlice(obj.Object, "status", "admissionChecks")
	for _, ch := range checks {
		m, _ := ch.(map[string]any)
		name, _ := m["name"].(string)
		if item, exists, _ := c.checks.GetByKey(name); exists {
			ac, isObj := item.(*unstructured.Unstructured)
			if !isObj {
				continue
			}
			if ctrl, _, _ := unstructured.NestedString(ac.Object, "spec", "controllerName"); ctrl == KueueSliceController {
				v.check = m
				break
			}
		}
	}
	if v.check == nil {
		return v, false, nil
	}
	v.quotaReserved = ConditionTrue(obj, "QuotaReserved")
	v.finished = ConditionTrue(obj, "Finished")
	v.evicted = ConditionTrue(obj, "Evicted")
	if active, found, _ := unstructured.NestedBool(obj.Object, "spec", "active"); found && !active {
		v.inactive = true
	}
	v.deleting = obj.GetDeletionTimestamp() != nil

	specSets, _, _ := unstructured.NestedSlice(obj.Object, "spec", "podSets")
	assignments, _, _ := unstructured.NestedSlice(obj.Object, "status", "admission", "podSetAssignments")
	for _, ps := range specSets {
		psm, _ := ps.(map[string]any)
		tmpl, _, _ := unstructured.NestedMap(psm, "template")
		value, ok := sliceTopologyOf(tmpl)
		if !ok {
			continue
		}
		t, err := slicerules.ParseTPU7x(value)
		if err != nil {
			return v, true, fmt.Errorf("pod set %v: %w", psm["name"], err)
		}
		p := wlPodSet{topology: t, groups: 1}
		p.name, _ = psm["name"].(string)
		if n, found, _ := unstructured.NestedInt64(psm, "topologyRequest", "subGroupCount"); found && n > 0 {
			p.groups = int(n)
		}
		for _, a := range assignments {
			am, _ := a.(map[string]any)
			if am["name"] != p.name {
				continue
			}
			if ta, found, _ := unstructured.NestedMap(am, "topologyAssignment"); found {
				var parsed wlTopologyAssignment
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(ta, &parsed); err != nil {
					return v, true, fmt.Errorf("pod set %s: reading its topology assignment: %w", p.name, err)
				}
				p.assignment = &parsed
			}
		}
		v.podSets = append(v.podSets, p)
	}
	return v, true, nil
}

// ownSlices are the Slices the check made for the Workload.
func (c *Check) ownSlices(namespace, name string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, item := range c.slices.List() {
		u, _ := item.(*unstructured.Unstructured)
		a := u.GetAnnotations()
		if a[wellknown.AnnotationOwnerWorkloadNamespace] == namespace && a[wellknown.AnnotationOwnerWorkloadName] == name {
			out = append(out, u)
		}
	}
	slices.SortFunc(out, func(a, b *unstructured.Unstructured) int { return strings.Compare(a.GetName(), b.GetName()) })
	return out
}

// reconcile brings one Workload's Slices and check state in line.
func (c *Check) reconcile(ctx context.Context, key string) (time.Duration, error) {
	item, exists, err := c.workloads.GetByKey(key)
	if err != nil {
		return 0, err
	}
	if !exists {
		// Its finalizer made the check delete its Slices before it went;
		// Slices that name a Workload that never existed are not the
		// check's business (GKE's leaves them alone too).
		return 0, nil
	}
	stored, isObj := item.(*unstructured.Unstructured)
	if !isObj {
		return 0, fmt.Errorf("workload cache holds %T", item)
	}
	v, ok, err := c.view(stored.DeepCopy())
	if !ok {
		return 0, err
	}
	own := c.ownSlices(v.namespace, v.name)
	if v.deleting || v.finished || v.evicted || v.inactive || !v.quotaReserved {
		return c.finalize(ctx, v, own)
	}
	if err != nil {
		return 0, c.setCheck(ctx, v, checkRejected, err.Error(), nil)
	}
	if len(v.podSets) == 0 || slices.ContainsFunc(v.podSets, func(p wlPodSet) bool { return p.assignment == nil }) {
		return 0, nil // no slice asked for, or TAS has not assigned yet
	}
	if !slices.Contains(v.obj.GetFinalizers(), sliceCheckFinalizer) {
		v.obj.SetFinalizers(append(v.obj.GetFinalizers(), sliceCheckFinalizer))
		_, err := c.dyn.Resource(WorkloadGVR).Namespace(v.namespace).Update(ctx, v.obj, metav1.UpdateOptions{})
		return 0, ignoreConflict(err)
	}
	return c.reconcileSlices(ctx, v, own)
}

// reconcileSlices brings the Slices of a Workload that has its assignment
// and the check's finalizer in line with the assignment, and the check in
// line with the Slices.
func (c *Check) reconcileSlices(ctx context.Context, v wlView, own []*unstructured.Unstructured) (time.Duration, error) {
	var live, going []*unstructured.Unstructured
	for _, s := range own {
		if s.GetDeletionTimestamp() != nil {
			going = append(going, s)
		} else {
			live = append(live, s)
		}
	}
	desired := 0
	for _, p := range v.podSets {
		desired += p.groups
	}
	if handled, err := c.settleCheckState(ctx, v, live, going, desired); handled {
		return 0, err
	}
	want, problem := c.wantedSlices(v)
	if problem != "" {
		return 0, c.setCheck(ctx, v, checkRetry, problem, nil)
	}
	create, stale := missingSlices(want, live)
	if stale != nil {
		return 0, c.deleteSlices(ctx, []*unstructured.Unstructured{stale})
	}
	if len(create) > 0 {
		return 0, c.createSlices(ctx, v, create)
	}
	return c.followSlices(ctx, v, live, desired)
}

// settleCheckState handles the check states in which Slices are deleted
// rather than made: a Ready check that lost a Slice turns Retry and
// deletes the others; a Retry or Rejected check deletes the live Slices;
// while Slices are being deleted, it waits. It reports whether it handled
// the Workload.
func (c *Check) settleCheckState(ctx context.Context, v wlView, live, going []*unstructured.Unstructured, desired int) (bool, error) {
	state, _ := v.check["state"].(string)
	switch {
	case state == checkReady && (len(going) > 0 || len(live) != desired):
		if err := c.setCheck(ctx, v, checkRetry, "A Slice of the workload has been deleted", nil); err != nil {
			return true, err
		}
		return true, c.deleteSlices(ctx, live)
	case state == checkRetry || state == checkRejected:
		// Kueue evicts the Workload and puts the check back to Pending.
		return true, c.deleteSlices(ctx, live)
	case len(going) > 0:
		return true, nil // the next state comes with their deletion
	}
	return false, nil
}

// missingSlices are the wanted Slices that do not exist yet; stale is the
// first live Slice whose partitions are not the wanted ones, or nil.
func missingSlices(want, live []*unstructured.Unstructured) (create []*unstructured.Unstructured, stale *unstructured.Unstructured) {
	byName := map[string]*unstructured.Unstructured{}
	for _, s := range live {
		byName[s.GetName()] = s
	}
	for _, w := range want {
		if have := byName[w.GetName()]; have != nil {
			hp, _, _ := unstructured.NestedStringSlice(have.Object, "spec", "partitionIds")
			wp, _, _ := unstructured.NestedStringSlice(w.Object, "spec", "partitionIds")
			if !slices.Equal(hp, wp) {
				return nil, have
			}
			continue
		}
		create = append(create, w)
	}
	return create, nil
}

// createSlices creates the Workload's missing Slices, unless other Slices
// hold their partitions, and sets the check Pending while they form.
func (c *Check) createSlices(ctx context.Context, v wlView, create []*unstructured.Unstructured) error {
	if conflict := c.partitionConflicts(create); conflict != "" {
		return c.setCheck(ctx, v, checkRetry, conflict, nil)
	}
	for _, s := range create {
		ids, _, _ := unstructured.NestedStringSlice(s.Object, "spec", "partitionIds")
		topo, _, _ := unstructured.NestedString(s.Object, "spec", "topology")
		c.log.Printf("workload %s/%s: creating Slice %s (%s) on partitions %s", v.namespace, v.name, s.GetName(), topo, strings.Join(ids, ","))
		if _, err := c.dyn.Resource(slicecontroller.SliceGVR).Create(ctx, s, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			msg := fmt.Sprintf("Error creating Slice %q: %v", s.GetName(), err)
			if serr := c.setCheck(ctx, v, checkPending, msg, nil); serr != nil {
				return serr
			}
			return err
		}
	}
	return c.setCheck(ctx, v, checkPending, "Waiting for Slices to be created", nil)
}

// wantedSlices are the Slices the Workload's assignment calls for, or why
// it cannot have them.
func (c *Check) wantedSlices(v wlView) ([]*unstructured.Unstructured, string) {
	var out []*unstructured.Unstructured
	for _, p := range v.podSets {
		ids, err := assignedPartitions(*p.assignment, partitionLabelFor(p.topology), c.nodeLabels)
		if err == nil {
			var groups [][]string
			if groups, err = splitPartitions(ids, p.groups, p.topology.Partitions()); err == nil {
				for i, g := range groups {
					out = append(out, kueueSlice(v, p, i, g))
				}
				continue
			}
		}
		return nil, fmt.Sprintf("pod set %s (%s): %v", p.name, p.topology, err)
	}
	return out, ""
}

// kueueSlice is the Slice of one sub-group of a pod set.
func kueueSlice(v wlView, p wlPodSet, index int, partitions []string) *unstructured.Unstructured {
	ids := make([]any, len(partitions))
	for i, id := range partitions {
		ids[i] = id
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": slicecontroller.SliceGVR.GroupVersion().String(),
		"kind":       "Slice",
		"metadata": map[string]any{
			"name": SliceName(v.namespace, v.name, p.name, index),
			"annotations": map[string]any{
				wellknown.AnnotationOwnerWorkloadNamespace: v.namespace,
				wellknown.AnnotationOwnerWorkloadName:      v.name,
				wellknown.AnnotationOwnerPodSet:            p.name,
			},
		},
		"spec": map[string]any{"type": slicerules.SliceType, "topology": p.topology.String(), "partitionIds": ids},
	}}
}

// partitionConflicts names the partitions of the Slices to create that
// other Slices hold.
func (c *Check) partitionConflicts(create []*unstructured.Unstructured) string {
	held := map[string]string{}
	for _, item := range c.slices.List() {
		u, isObj := item.(*unstructured.Unstructured)
		if !isObj {
			continue
		}
		if v := slicecontroller.ViewOf(u); claims(v) {
			for _, id := range v.Partitions {
				held[id] = v.Name
			}
		}
	}
	var conflicts []string
	for _, s := range create {
		ids, _, _ := unstructured.NestedStringSlice(s.Object, "spec", "partitionIds")
		for _, id := range ids {
			if other, ok := held[id]; ok {
				conflicts = append(conflicts, fmt.Sprintf("%s (used by %s)", id, other))
			}
		}
	}
	if len(conflicts) == 0 {
		return ""
	}
	return "partitions already used by other Slices: " + strings.Join(conflicts, ", ")
}

// followSlices sets the check from the state of the Workload's Slices.
func (c *Check) followSlices(ctx context.Context, v wlView, live []*unstructured.Unstructured, desired int) (time.Duration, error) {
	counts := map[string]int{}
	var failures []string
	for _, s := range live {
		sv := slicecontroller.ViewOf(s)
		state := sv.State
		if state == "" {
			state = "CREATED"
		}
		counts[state]++
		switch sv.State {
		case slicecontroller.ReasonFailed:
			_, msg := slicecontroller.ReadyReason(s)
			failures = append(failures, fmt.Sprintf("%s: %s", sv.Name, msg))
		case slicecontroller.ReasonSliceCreationFailed:
			if !sv.Retry {
				_, msg := slicecontroller.ReadyReason(s)
				failures = append(failures, fmt.Sprintf("%s: %s", sv.Name, msg))
			}
		case slicecontroller.ReasonActive, slicecontroller.ReasonActiveDegraded:
		default:
			if time.Since(s.GetCreationTimestamp().Time) >= sliceActivationTimeout {
				failures = append(failures, fmt.Sprintf("%s: not ACTIVE after %s (FormationTimeout)", sv.Name, sliceActivationTimeout))
			}
		}
	}
	states := make([]string, 0, len(counts))
	for state, n := range counts {
		states = append(states, fmt.Sprintf("%d %s", n, state))
	}
	slices.Sort(states)
	msg := "Slices are in states: " + strings.Join(states, ", ")
	active := counts[slicecontroller.ReasonActive] + counts[slicecontroller.ReasonActiveDegraded]
	switch {
	case active == desired:
		return 0, c.setCheck(ctx, v, checkReady, msg, v.podSetUpdates())
	case len(failures) > 0:
		if err := c.setCheck(ctx, v, checkRetry, msg+". Errors: "+strings.Join(failures, "; "), nil); err != nil {
			return 0, err
		}
		return 0, c.deleteSlices(ctx, live)
	default:
		if err := c.setCheck(ctx, v, checkPending, msg, nil); err != nil {
			return 0, err
		}
		return 5 * time.Second, nil // to notice a Slice that never forms
	}
}

// podSetUpdates pin each pod set's pods to nodes of its slice topology.
func (v wlView) podSetUpdates() []any {
	out := make([]any, 0, len(v.podSets))
	for _, p := range v.podSets {
		out = append(out, map[string]any{"name": p.name, "nodeSelector": map[string]any{wellknown.LabelSliceTopology: p.topology.String()}})
	}
	return out
}

// setCheck writes the check's state and message (and, when Ready, the pod
// set updates) into the Workload's status, unless they are already so.
func (c *Check) setCheck(ctx context.Context, v wlView, state, message string, updates []any) error {
	if len(message) > 1024 {
		message = message[:1021] + "..."
	}
	old, _ := v.check["state"].(string)
	oldMsg, _ := v.check["message"].(string)
	if old == state && oldMsg == message {
		return nil
	}
	entry := map[string]any{
		"name":               v.check["name"],
		"state":              state,
		"message":            message,
		"lastTransitionTime": v.check["lastTransitionTime"],
	}
	if old != state || entry["lastTransitionTime"] == nil {
		entry["lastTransitionTime"] = time.Now().UTC().Format(time.RFC3339)
	}
	if state == checkRetry {
		entry["requeueAfterSeconds"] = int64(sliceRetryDelay / time.Second)
	}
	if len(updates) > 0 {
		entry["podSetUpdates"] = updates
	}
	patch := map[string]any{
		"apiVersion": WorkloadGVR.GroupVersion().String(), "kind": "Workload",
		"metadata": map[string]any{"name": v.name, "namespace": v.namespace},
		"status":   map[string]any{"admissionChecks": []any{entry}},
	}
	if old != state {
		c.log.Printf("workload %s/%s: check %v %s → %s: %s", v.namespace, v.name, v.check["name"], old, state, message)
	}
	err := c.applyStatus(ctx, c.dyn.Resource(WorkloadGVR).Namespace(v.namespace), v.name, patch)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// finalize deletes the Slices of a Workload that no longer runs, once its
// pods have ended, and lets the Workload go.
func (c *Check) finalize(ctx context.Context, v wlView, own []*unstructured.Unstructured) (time.Duration, error) {
	var live []*unstructured.Unstructured
	for _, s := range own {
		if s.GetDeletionTimestamp() == nil {
			live = append(live, s)
		}
	}
	if len(live) > 0 {
		done, err := c.ownerPodsEnded(ctx, v)
		if err != nil {
			return 0, err
		}
		if !done {
			return ownerPodsPoll, nil
		}
		if err := c.deleteSlices(ctx, live); err != nil {
			return 0, err
		}
	}
	if !slices.Contains(v.obj.GetFinalizers(), sliceCheckFinalizer) {
		return 0, nil
	}
	v.obj.SetFinalizers(slices.DeleteFunc(v.obj.GetFinalizers(), func(f string) bool { return f == sliceCheckFinalizer }))
	_, err := c.dyn.Resource(WorkloadGVR).Namespace(v.namespace).Update(ctx, v.obj, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	return 0, ignoreConflict(err)
}

// ownerPodsEnded says whether every pod of the Workload's Job or JobSet has
// ended (true when the owner is gone or of another kind).
func (c *Check) ownerPodsEnded(ctx context.Context, v wlView) (bool, error) {
	owner := metav1.GetControllerOf(v.obj)
	if owner == nil {
		return true, nil
	}
	var selector string
	switch owner.Kind {
	case "Job":
		selector = "batch.kubernetes.io/job-name=" + owner.Name
	case "JobSet":
		selector = "jobset.sigs.k8s.io/jobset-name=" + owner.Name
	default:
		return true, nil
	}
	pods, err := c.kube.CoreV1().Pods(v.namespace).List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return false, err
	}
	for i := range pods.Items {
		if p := pods.Items[i].Status.Phase; p != corev1.PodSucceeded && p != corev1.PodFailed {
			return false, nil
		}
	}
	return true, nil
}

// deleteSlices deletes Slices (each only if it is still the one read).
func (c *Check) deleteSlices(ctx context.Context, list []*unstructured.Unstructured) error {
	for _, s := range list {
		c.log.Printf("deleting Slice %s of workload %s/%s", s.GetName(), s.GetAnnotations()[wellknown.AnnotationOwnerWorkloadNamespace], s.GetAnnotations()[wellknown.AnnotationOwnerWorkloadName])
		uid := s.GetUID()
		err := c.dyn.Resource(slicecontroller.SliceGVR).Delete(ctx, s.GetName(), metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("deleting Slice %s: %w", s.GetName(), err)
		}
	}
	return nil
}

// claims says whether a Slice holds its partitions against new Slices.
func claims(v slicecontroller.View) bool {
	if v.Obj.GetDeletionTimestamp() != nil {
		return false
	}
	switch v.State {
	case slicecontroller.ReasonFailed:
		return false
	case slicecontroller.ReasonSliceCreationFailed:
		return v.Retry // it takes them as soon as they can be formed
	}
	return true
}

// ignoreConflict treats a write conflict as done: the informer brings the
// newer object and the workload is reconciled again.
func ignoreConflict(err error) error {
	if apierrors.IsConflict(err) {
		return nil
	}
	return err
}
