package sandbox

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// SliceGVR is the Slice resource the controller serves.
var SliceGVR = schema.GroupVersionResource{Group: "accelerator.gke.io", Version: "v1beta1", Resource: "slices"}

// Timing of the simulated controller.
const (
	sliceRetryInterval = 500 * time.Millisecond
	sliceStepDelay     = 50 * time.Millisecond // between DEACTIVATING, INCOMPLETE and release
	partitionIndex     = "partition"
)

// sliceController simulates the GKE slice controller: it drives Slices
// through the documented lifecycle, labels the nodes of formed slices and
// follows partition health.
type sliceController struct {
	world  *world
	kube   kubernetes.Interface
	dyn    dynamic.Interface
	slices dynamic.NamespaceableResourceInterface

	sliceStore cache.Store
	nodeIndex  cache.Indexer
	queue      workqueue.TypedRateLimitingInterface[string]

	// formedAt is when each ACTIVATING slice (by UID) may finish forming.
	mu       sync.Mutex
	formedAt map[types.UID]time.Time
	// activeAt is when each slice (by name) was first marked ACTIVE or
	// ACTIVE_DEGRADED: the start of the status update that stored it.
	activeAt map[string]time.Time
	// announced is, for each slice (by UID), the transition it was last
	// announced with an Event: the version it started from and its state
	// (made on first use).
	announced map[types.UID]string
}

func newSliceController(w *world, kube kubernetes.Interface, dyn dynamic.Interface) *sliceController {
	return &sliceController{
		world:    w,
		kube:     kube,
		dyn:      dyn,
		slices:   dyn.Resource(SliceGVR),
		formedAt: map[types.UID]time.Time{},
		activeAt: map[string]time.Time{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](20*time.Millisecond, 2*time.Second),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "slices"}),
	}
}

// start runs the informers and the worker until ctx ends.
func (c *sliceController) start(ctx context.Context) error {
	sliceInformer := dynamicinformer.NewDynamicSharedInformerFactory(c.dyn, 0).ForResource(SliceGVR).Informer()
	nodeInformer := informers.NewSharedInformerFactory(c.kube, 0).Core().V1().Nodes().Informer()
	// Nodes by the ID of each of their partitions, of every shape.
	if err := nodeInformer.AddIndexers(cache.Indexers{partitionIndex: func(obj any) ([]string, error) {
		n, ok := obj.(*corev1.Node)
		if !ok {
			return nil, nil
		}
		var ids []string
		for _, shape := range topology.PartitionShapes {
			if id := n.Labels[topology.PartitionIDLabel(shape)]; id != "" {
				ids = append(ids, id)
			}
		}
		return ids, nil
	}}); err != nil {
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
	go func() {
		<-ctx.Done()
		c.queue.ShutDown()
	}()
	go c.work(ctx)
	return nil
}

// nodeChanged enqueues every slice when a node's readiness or slice-relevant
// labels change (not on heartbeats).
func nodeChanged(old, obj any, enqueueAll func(any)) {
	o, ok1 := old.(*corev1.Node)
	n, ok2 := obj.(*corev1.Node)
	if !ok1 || !ok2 || nodeReady(o) != nodeReady(n) || o.Labels[LabelSlice] != n.Labels[LabelSlice] {
		enqueueAll(obj)
		return
	}
	for _, shape := range topology.PartitionShapes {
		if l := topology.PartitionStateLabel(shape); o.Labels[l] != n.Labels[l] {
			enqueueAll(obj)
			return
		}
	}
}

func (c *sliceController) work(ctx context.Context) {
	for {
		key, shutdown := c.queue.Get()
		if shutdown {
			return
		}
		after, err := c.reconcile(ctx, key)
		switch {
		case err != nil && ctx.Err() == nil:
			c.queue.AddRateLimited(key)
		case after > 0:
			c.queue.Forget(key)
			c.queue.AddAfter(key, after)
		default:
			c.queue.Forget(key)
		}
		c.queue.Done(key)
	}
}

// sliceView is what the controller reads from a Slice.
type sliceView struct {
	obj        *unstructured.Unstructured
	name       string
	topology   string
	partitions []string
	state      string
	retry      bool
}

func viewOf(obj *unstructured.Unstructured) sliceView {
	v := sliceView{obj: obj, name: obj.GetName()}
	v.topology, _, _ = unstructured.NestedString(obj.Object, "spec", "topology")
	v.partitions, _, _ = unstructured.NestedStringSlice(obj.Object, "spec", "partitionIds")
	v.state, _ = readyReason(obj)
	v.retry = obj.GetAnnotations()[AnnotationRetryOnFailure] == "true"
	return v
}

// readyReason returns the reason and message of the Ready condition.
func readyReason(obj *unstructured.Unstructured) (string, string) {
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
func (c *sliceController) reconcile(ctx context.Context, key string) (time.Duration, error) {
	item, exists, err := c.sliceStore.GetByKey(key)
	if err != nil || !exists {
		return 0, err
	}
	stored, ok := item.(*unstructured.Unstructured)
	if !ok {
		return 0, fmt.Errorf("slice cache holds %T", item)
	}
	obj := stored.DeepCopy()
	v := viewOf(obj)

	if obj.GetDeletionTimestamp() != nil {
		c.mu.Lock()
		delete(c.activeAt, obj.GetName()) // a new slice of the same name starts afresh
		delete(c.announced, obj.GetUID())
		c.mu.Unlock()
		return c.deactivate(ctx, v)
	}
	if !hasFinalizer(obj) {
		obj.SetFinalizers(append(obj.GetFinalizers(), SliceFinalizer))
		_, err := c.slices.Update(ctx, obj, metav1.UpdateOptions{})
		return 0, ignoreConflict(err)
	}

	c.world.mu.Lock()
	activation := time.Duration(c.world.faults.SliceActivationDelayMs) * time.Millisecond
	c.world.mu.Unlock()

	switch v.state {
	case "":
		return 0, c.setState(ctx, v, ReasonSliceNotCreated, "The slice controller is checking the slice's partitions.")
	case ReasonSliceNotCreated:
		if problem := c.checkPrerequisites(v); problem != "" {
			return c.creationFailed(ctx, v, problem)
		}
		c.startForming(v, activation)
		return activation, c.setState(ctx, v, ReasonActivating, "Forming the ICI links of the slice.")
	case ReasonSliceCreationFailed:
		if !v.retry {
			return 0, nil
		}
		if problem := c.checkPrerequisites(v); problem != "" {
			_, msg := readyReason(obj)
			if msg != problem {
				return c.creationFailed(ctx, v, problem)
			}
			return sliceRetryInterval, nil
		}
		c.startForming(v, activation)
		return activation, c.transition(ctx, v, corev1.EventTypeNormal, ReasonActivating, "The slice's prerequisites are met now; forming its ICI links (retry).")
	case ReasonActivating:
		if wait := c.formingLeft(v); wait > 0 {
			return wait, nil
		}
		return c.activate(ctx, v)
	case ReasonActive, ReasonActiveDegraded:
		return 0, c.followHealth(ctx, v)
	case ReasonDeactivating:
		return 0, c.finishDismantling(ctx, v)
	}
	return 0, nil // FAILED is final; INCOMPLETE only on deletion
}

// startForming records when the slice may finish ACTIVATING.
func (c *sliceController) startForming(v sliceView, delay time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.formedAt[v.obj.GetUID()] = time.Now().Add(delay)
}

// formingLeft is how long the slice still stays ACTIVATING.
func (c *sliceController) formingLeft(v sliceView) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.formedAt[v.obj.GetUID()]
	if !ok {
		return 0
	}
	if left := time.Until(at); left > 0 {
		return left
	}
	delete(c.formedAt, v.obj.GetUID())
	return 0
}

// checkPrerequisites applies the documented SliceCreationFailed rules: the
// topology matches the number of partitions, which are of the topology's
// partition shape (4x4x4, or the sub-slice's own shape), every partition's
// nodes exist and are Ready, and no other slice uses any of them (a
// partition that overlaps one of another slice is in use). It returns the
// problem, or "".
func (c *sliceController) checkPrerequisites(v sliceView) string {
	topo, err := topology.ParseTPU7x(v.topology)
	if err != nil {
		return err.Error()
	}
	if err := topo.CheckPartitionIDs(v.partitions); err != nil {
		return "the topology does not match the partitions: " + err.Error()
	}
	shape := topo.PartitionShape()
	held := c.heldNodes(v.name)
	for _, id := range v.partitions {
		nodes := c.partitionNodes(id)
		if len(nodes) == 0 {
			return fmt.Sprintf("the nodes of partition %s do not exist", id)
		}
		if nodes[0].Labels[topology.PartitionIDLabel(shape)] != id {
			return fmt.Sprintf("partition %s is not a %s partition: a %s slice is formed from the %s label of its nodes", id, shape, v.topology, topology.PartitionIDLabel(shape))
		}
		for _, n := range nodes {
			if h, ok := held[n.Name]; ok {
				if h.partition != id {
					return fmt.Sprintf("the nodes of partition %s are used by slice %s (its partition %s overlaps this one)", id, h.slice, h.partition)
				}
				return fmt.Sprintf("the nodes of partition %s are used by slice %s", id, h.slice)
			}
			if other := n.Labels[LabelSlice]; other != "" && other != v.name {
				return fmt.Sprintf("the nodes of partition %s are used by slice %s", id, other)
			}
		}
		state := nodes[0].Labels[topology.PartitionStateLabel(shape)]
		if !formable(shape, state) {
			return fmt.Sprintf("partition %s is %s: not all of its nodes are ready (%d of %d exist)", id, state, len(nodes), topology.HostsOfShape(shape))
		}
		for _, n := range nodes {
			if !nodeReady(n) {
				return fmt.Sprintf("node %s of partition %s is not Ready", n.Name, id)
			}
		}
	}
	return ""
}

// formable says whether a partition of the shape in this state can join a
// slice: HEALTHY, or DEGRADED for a 4x4x4 (the only shape that has it).
func formable(shape, state string) bool {
	return state == PartitionHealthy || (state == PartitionDegraded && shape == topology.PartitionTopology)
}

// holder is a slice that holds a node, and its partition that does.
type holder struct{ slice, partition string }

// heldNodes maps each node of another live slice (one that is activating
// or formed) to that slice and its partition: a partition of any shape
// overlapping one of those is in use.
func (c *sliceController) heldNodes(except string) map[string]holder {
	out := map[string]holder{}
	for _, item := range c.sliceStore.List() {
		stored, ok := item.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		other := viewOf(stored)
		if other.name == except || other.obj.GetDeletionTimestamp() != nil {
			continue
		}
		switch other.state {
		case ReasonActivating, ReasonActive, ReasonActiveDegraded:
			for _, id := range other.partitions {
				for _, n := range c.partitionNodes(id) {
					out[n.Name] = holder{other.name, id}
				}
			}
		}
	}
	return out
}

func (c *sliceController) partitionNodes(id string) []*corev1.Node {
	items, _ := c.nodeIndex.ByIndex(partitionIndex, id)
	nodes := make([]*corev1.Node, 0, len(items))
	for _, it := range items {
		if n, ok := it.(*corev1.Node); ok {
			nodes = append(nodes, n)
		}
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	return nodes
}

func (c *sliceController) creationFailed(ctx context.Context, v sliceView, problem string) (time.Duration, error) {
	if err := c.transition(ctx, v, corev1.EventTypeWarning, ReasonSliceCreationFailed, problem); err != nil {
		return 0, err
	}
	if v.retry {
		return sliceRetryInterval, nil
	}
	return 0, nil
}

// activate finishes formation: FAILED when the partitions span reservations
// or blocks (or a formation failure is injected), else ACTIVE or
// ACTIVE_DEGRADED with the slice labels on every node.
func (c *sliceController) activate(ctx context.Context, v sliceView) (time.Duration, error) {
	c.world.mu.Lock()
	var reservations, blocks []string
	seenRes, seenBlock := map[string]bool{}, map[string]bool{}
	for _, id := range v.partitions {
		if sb := c.world.subBlockByPartition(id); sb != nil {
			if !seenRes[sb.Reservation] {
				seenRes[sb.Reservation] = true
				reservations = append(reservations, sb.Reservation)
			}
			if b := sb.Reservation + "/" + sb.Block; !seenBlock[b] {
				seenBlock[b] = true
				blocks = append(blocks, b)
			}
		}
	}
	injected := c.world.faults.FailSliceFormations > 0
	if injected {
		c.world.faults.FailSliceFormations--
	}
	c.world.mu.Unlock()

	var failure string
	switch {
	case len(reservations) > 1:
		failure = "the partitions are not in the same reservation: " + strings.Join(reservations, ", ")
	case len(blocks) > 1:
		failure = "the partitions are not in the same reservation block: " + strings.Join(blocks, ", ")
	case injected:
		failure = "the ICI links of the slice could not be formed (sandbox fault)"
	}
	if failure != "" {
		return 0, c.transition(ctx, v, corev1.EventTypeWarning, ReasonFailed, failure)
	}
	if err := c.labelNodes(ctx, v, true); err != nil {
		return 0, err
	}
	state, msg := c.healthState(v)
	if state == ReasonFailed {
		return 0, c.transition(ctx, v, corev1.EventTypeWarning, ReasonFailed, msg)
	}
	return 0, c.transition(ctx, v, corev1.EventTypeNormal, state, msg)
}

// healthState is the state a formed slice has from its partitions' health,
// each read from the state label of the slice's partition shape.
func (c *sliceController) healthState(v sliceView) (string, string) {
	shape := topology.PartitionTopology
	if topo, err := topology.ParseTPU7x(v.topology); err == nil {
		shape = topo.PartitionShape()
	}
	degraded := []string{}
	for _, id := range v.partitions {
		nodes := c.partitionNodes(id)
		state := PartitionIncomplete
		if len(nodes) > 0 {
			state = nodes[0].Labels[topology.PartitionStateLabel(shape)]
		}
		switch state {
		case PartitionHealthy:
		case PartitionDegraded:
			degraded = append(degraded, id)
		default:
			return ReasonFailed, fmt.Sprintf("partition %s became %s (%d of %d nodes exist)", id, state, len(nodes), topology.HostsOfShape(shape))
		}
	}
	if len(degraded) > 0 {
		return ReasonActiveDegraded, "The slice is usable; degraded partitions: " + strings.Join(degraded, ", ")
	}
	return ReasonActive, "The slice is formed and healthy."
}

func (c *sliceController) followHealth(ctx context.Context, v sliceView) error {
	state, msg := c.healthState(v)
	if state == v.state {
		return nil
	}
	if state == ReasonFailed {
		return c.startDismantling(ctx, v, msg)
	}
	eventType := corev1.EventTypeNormal
	if state != ReasonActive {
		eventType = corev1.EventTypeWarning
	}
	return c.transition(ctx, v, eventType, state, msg)
}

// deactivate walks a deleted slice through DEACTIVATING and INCOMPLETE,
// removes the slice labels from its nodes, then releases the finalizer.
func (c *sliceController) deactivate(ctx context.Context, v sliceView) (time.Duration, error) {
	if !hasFinalizer(v.obj) {
		return 0, nil
	}
	switch v.state {
	case ReasonDeactivating:
		if err := c.labelNodes(ctx, v, false); err != nil {
			return 0, err
		}
		return sliceStepDelay, c.setState(ctx, v, ReasonIncomplete, "The slice is dismantled.")
	case ReasonIncomplete:
		c.world.mu.Lock()
		hold := c.world.faults.HoldSliceFinalizers
		c.world.mu.Unlock()
		if hold {
			return sliceRetryInterval, nil
		}
		var keep []string
		for _, f := range v.obj.GetFinalizers() {
			if f != SliceFinalizer {
				keep = append(keep, f)
			}
		}
		v.obj.SetFinalizers(keep)
		_, err := c.slices.Update(ctx, v.obj, metav1.UpdateOptions{})
		if apierrors.IsNotFound(err) {
			return 0, nil
		}
		return 0, ignoreConflict(err)
	default:
		return sliceStepDelay, c.setState(ctx, v, ReasonDeactivating, "The slice is being dismantled.")
	}
}

// labelNodes adds (or removes) the slice labels on the nodes of the
// slice's partitions. Removal only touches nodes labelled with this slice.
func (c *sliceController) labelNodes(ctx context.Context, v sliceView, add bool) error {
	for _, id := range v.partitions {
		for _, n := range c.partitionNodes(id) {
			var patch string
			switch {
			case add && (n.Labels[LabelSlice] != v.name || n.Labels[LabelSliceTopology] != v.topology):
				patch = fmt.Sprintf(`{"metadata":{"labels":{%q:%q,%q:%q}}}`, LabelSlice, v.name, LabelSliceTopology, v.topology)
			case !add && n.Labels[LabelSlice] == v.name:
				patch = fmt.Sprintf(`{"metadata":{"labels":{%q:null,%q:null}}}`, LabelSlice, LabelSliceTopology)
			default:
				continue
			}
			if _, err := c.kube.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
	}
	return nil
}

// setState writes the Ready condition (and SliceCreationFailed) through
// the status subresource.
func (c *sliceController) setState(ctx context.Context, v sliceView, reason, message string) error {
	obj := v.obj.DeepCopy()
	ready := metav1.ConditionFalse
	if reason == ReasonActive || reason == ReasonActiveDegraded {
		ready = metav1.ConditionTrue
	}
	failed := metav1.ConditionFalse
	if reason == ReasonSliceCreationFailed {
		failed = metav1.ConditionTrue
	}
	now := metav1.Now().UTC().Format(time.RFC3339)
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	conds = upsertCondition(conds, ConditionReady, string(ready), reason, message, obj.GetGeneration(), now)
	conds = upsertCondition(conds, ConditionCreationFailed, string(failed), reason, message, obj.GetGeneration(), now)
	if err := unstructured.SetNestedSlice(obj.Object, conds, "status", "conditions"); err != nil {
		return err
	}
	// The ACTIVE time is noted before the write and taken back if it fails:
	// a watcher can see the stored slice before this call returns, and must
	// then find the time.
	noted := false
	if ready == metav1.ConditionTrue && v.state != ReasonActive && v.state != ReasonActiveDegraded {
		c.mu.Lock()
		if _, seen := c.activeAt[obj.GetName()]; !seen {
			c.activeAt[obj.GetName()], noted = time.Now(), true
		}
		c.mu.Unlock()
	}
	_, err := c.slices.UpdateStatus(ctx, obj, metav1.UpdateOptions{})
	if err != nil && noted {
		c.mu.Lock()
		delete(c.activeAt, obj.GetName())
		c.mu.Unlock()
	}
	if apierrors.IsNotFound(err) {
		return nil
	}
	return ignoreConflict(err)
}

// markedActive is when the slice was first marked ACTIVE (or
// ACTIVE_DEGRADED), and whether it was.
func (c *sliceController) markedActive(name string) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.activeAt[name]
	return at, ok
}

func upsertCondition(conds []any, typ, status, reason, message string, generation int64, now string) []any {
	for i, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != typ {
			continue
		}
		if m["status"] != status {
			m["lastTransitionTime"] = now
		}
		m["status"], m["reason"], m["message"], m["observedGeneration"] = status, reason, message, generation
		conds[i] = m
		return conds
	}
	return append(conds, map[string]any{
		"type": typ, "status": status, "reason": reason, "message": message,
		"observedGeneration": generation, "lastTransitionTime": now,
	})
}

// event records a Kubernetes Event on the slice, as the controller does.
func (c *sliceController) event(ctx context.Context, v sliceView, eventType, reason, message string) {
	now := metav1.Now()
	_, _ = c.kube.CoreV1().Events("default").Create(ctx, &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{GenerateName: v.name + "."},
		InvolvedObject: corev1.ObjectReference{
			APIVersion: "accelerator.gke.io/v1beta1", Kind: "Slice", Name: v.name, UID: v.obj.GetUID(),
		},
		Type: eventType, Reason: reason, Message: message,
		Source:         corev1.EventSource{Component: "slice-controller"},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
		ReportingController: "accelerator.gke.io/slice-controller", ReportingInstance: "sandbox",
	}, metav1.CreateOptions{})
}

func hasFinalizer(obj *unstructured.Unstructured) bool {
	for _, f := range obj.GetFinalizers() {
		if f == SliceFinalizer {
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
