package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/protobuf/proto"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The fixture every reservation and node pool test starts from: one
// reservation with one block of three sub-blocks, listed out of order;
// sb-b is in use.
const (
	testProject     = "proj"
	testZone        = "us-central1-a"
	testRegion      = "us-central1"
	testReservation = "res"
	testBlock       = "block-1"
	testCluster     = "cluster-1"
)

func notFound(what string) error {
	return &googleapi.Error{Code: http.StatusNotFound, Message: fmt.Sprintf("The resource '%s' was not found", what)}
}

// fakeCompute is an in-memory Compute.
type fakeCompute struct {
	mu sync.Mutex

	policies map[string]*computepb.ResourcePolicy // project/region/name
	inserted []insertCall
	deleted  []string
	// Errors the policy calls return instead of doing their work.
	insertErr, getPolicyErr, deletePolicyErr error

	reservations map[string]bool                             // project/zone/reservation
	blocks       map[string]*computepb.ReservationBlock      // project/zone/reservation/block
	subBlocks    map[string][]*computepb.ReservationSubBlock // project/zone/reservation/block
	// Errors the reservation calls return instead of doing their work.
	reservationErr, blockErr, listErr error
	// reads counts the reservation reads (GetReservation calls).
	reads int
}

type insertCall struct {
	project, region string
	policy          *computepb.ResourcePolicy
}

func newFakeCompute() *fakeCompute {
	return &fakeCompute{
		policies:     map[string]*computepb.ResourcePolicy{},
		reservations: map[string]bool{},
		blocks:       map[string]*computepb.ReservationBlock{},
		subBlocks:    map[string][]*computepb.ReservationSubBlock{},
	}
}

// withFixtureBlock adds the fixture's reservation and block.
func (c *fakeCompute) withFixtureBlock() *fakeCompute {
	c.setBlock(
		subBlock("sb-c", 0, "phys-c"),
		subBlock("sb-b", 16, "phys-b"),
		subBlock("sb-a", 0, "phys-a"),
	)
	return c
}

// setBlock sets the sub-blocks of the fixture's block, adding the block
// and its reservation.
func (c *fakeCompute) setBlock(subs ...*computepb.ReservationSubBlock) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := testProject + "/" + testZone + "/" + testReservation
	c.reservations[key] = true
	inUse := int32(0)
	for _, s := range subs {
		if s.GetInUseCount() > 0 {
			inUse++
		}
	}
	c.blocks[key+"/"+testBlock] = &computepb.ReservationBlock{
		Name:                          proto.String(testBlock),
		ReservationSubBlockCount:      proto.Int32(int32(len(subs))),
		ReservationSubBlockInUseCount: proto.Int32(inUse),
	}
	c.subBlocks[key+"/"+testBlock] = subs
}

// subBlock is a 16-host sub-block with inUse hosts in use.
func subBlock(name string, inUse int32, physical string) *computepb.ReservationSubBlock {
	return &computepb.ReservationSubBlock{
		Name:       proto.String(name),
		Count:      proto.Int32(16),
		InUseCount: proto.Int32(inUse),
		Status:     proto.String("READY"),
		HealthInfo: &computepb.ReservationSubBlockHealthInfo{
			HealthStatus:      proto.String("HEALTHY"),
			HealthyHostCount:  proto.Int32(15),
			DegradedHostCount: proto.Int32(1),
		},
		PhysicalTopology: &computepb.ReservationSubBlockPhysicalTopology{
			Cluster:  proto.String("phys-cluster"),
			Block:    proto.String("phys-block"),
			SubBlock: proto.String(physical),
		},
	}
}

func (c *fakeCompute) InsertResourcePolicy(_ context.Context, project, region string, policy *computepb.ResourcePolicy) (Operation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.insertErr != nil {
		return nil, c.insertErr
	}
	c.inserted = append(c.inserted, insertCall{project: project, region: region, policy: proto.Clone(policy).(*computepb.ResourcePolicy)})
	stored := proto.Clone(policy).(*computepb.ResourcePolicy)
	stored.Id = proto.Uint64(4242424242)
	stored.Region = proto.String("https://www.googleapis.com/compute/v1/projects/" + project + "/regions/" + region)
	stored.SelfLink = proto.String(fmt.Sprintf("https://www.googleapis.com/compute/v1/projects/%s/regions/%s/resourcePolicies/%s", project, region, policy.GetName()))
	stored.Status = proto.String("READY")
	c.policies[project+"/"+region+"/"+policy.GetName()] = stored
	return doneOperation("operation-insert"), nil
}

func (c *fakeCompute) GetResourcePolicy(_ context.Context, project, region, name string) (*computepb.ResourcePolicy, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.getPolicyErr != nil {
		return nil, c.getPolicyErr
	}
	p, ok := c.policies[project+"/"+region+"/"+name]
	if !ok {
		return nil, notFound("projects/" + project + "/regions/" + region + "/resourcePolicies/" + name)
	}
	return proto.Clone(p).(*computepb.ResourcePolicy), nil
}

func (c *fakeCompute) DeleteResourcePolicy(_ context.Context, project, region, name string) (Operation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deleted = append(c.deleted, project+"/"+region+"/"+name)
	if c.deletePolicyErr != nil {
		return nil, c.deletePolicyErr
	}
	key := project + "/" + region + "/" + name
	if _, ok := c.policies[key]; !ok {
		return nil, notFound("projects/" + project + "/regions/" + region + "/resourcePolicies/" + name)
	}
	delete(c.policies, key)
	return doneOperation("operation-delete"), nil
}

// fakeOperation is a Compute operation that is DONE at its doneAt-th
// poll, failed with failure when that is set.
type fakeOperation struct {
	name          string
	polls, doneAt int
	failure       string
	pollErr       error
}

// doneOperation is an operation DONE in the answer of the call that
// started it.
func doneOperation(name string) *fakeOperation { return &fakeOperation{name: name} }

func (o *fakeOperation) Name() string { return o.name }

func (o *fakeOperation) State() OperationState {
	s := OperationState{Done: o.polls >= o.doneAt, Status: "RUNNING"}
	if s.Done {
		s.Status = "DONE"
		s.Failed, s.Message = o.failure != "", o.failure
	}
	return s
}

func (o *fakeOperation) Poll(context.Context) error {
	if o.pollErr != nil {
		return o.pollErr
	}
	o.polls++
	return nil
}

func (c *fakeCompute) GetReservation(_ context.Context, project, zone, reservation string) (*computepb.Reservation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	if c.reservationErr != nil {
		return nil, c.reservationErr
	}
	if !c.reservations[project+"/"+zone+"/"+reservation] {
		return nil, notFound(reservation)
	}
	return &computepb.Reservation{Name: proto.String(reservation), Zone: proto.String(zone)}, nil
}

func (c *fakeCompute) GetReservationBlock(_ context.Context, project, zone, reservation, block string) (*computepb.ReservationBlock, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.blockErr != nil {
		return nil, c.blockErr
	}
	b, ok := c.blocks[project+"/"+zone+"/"+reservation+"/"+block]
	if !ok {
		return nil, notFound(block)
	}
	return proto.Clone(b).(*computepb.ReservationBlock), nil
}

func (c *fakeCompute) ListReservationSubBlocks(_ context.Context, project, zone, reservation, block string) ([]*computepb.ReservationSubBlock, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.listErr != nil {
		return nil, c.listErr
	}
	var out []*computepb.ReservationSubBlock
	for _, s := range c.subBlocks[project+"/"+zone+"/"+reservation+"/"+block] {
		out = append(out, proto.Clone(s).(*computepb.ReservationSubBlock))
	}
	return out, nil
}

func (c *fakeCompute) GetReservationSubBlock(_ context.Context, project, zone, reservation, block, name string) (*computepb.ReservationSubBlock, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, s := range c.subBlocks[project+"/"+zone+"/"+reservation+"/"+block] {
		if s.GetName() == name {
			return proto.Clone(s).(*computepb.ReservationSubBlock), nil
		}
	}
	return nil, notFound(name)
}

// fakeGKE is an in-memory GKE. Create and Delete answer an operation that
// is DONE unless createOp or deleteOp says otherwise; GetOperation answers
// ops in turn, repeating the last.
type fakeGKE struct {
	mu sync.Mutex

	pools map[string]*container.NodePool // full node pool name
	// version is the cluster's currentMasterVersion; clusterGets counts
	// GetCluster calls.
	version     string
	clusterGets int
	created     []createCall
	// Errors the calls return instead of doing their work.
	createErr, getErr, deleteErr, opErr, listErr error
	// poolGets counts GetNodePool calls.
	poolGets              int
	createOp, deleteOp    *container.Operation
	ops                   []*container.Operation
	opNames, deletedNames []string
	// events is the order of calls, shared with the tests' callbacks.
	events []string
}

type createCall struct {
	cluster string
	pool    *container.NodePool
	// json is the pool as the client library would send it.
	json string
}

func newFakeGKE() *fakeGKE { return &fakeGKE{pools: map[string]*container.NodePool{}} }

func (g *fakeGKE) record(event string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.events = append(g.events, event)
}

func (g *fakeGKE) eventLog() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.events...)
}

func (g *fakeGKE) CreateNodePool(_ context.Context, cluster string, pool *container.NodePool) (*container.Operation, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.events = append(g.events, "create")
	if g.createErr != nil {
		return nil, g.createErr
	}
	// A copy through JSON, as the wire would make it.
	b, err := json.Marshal(pool)
	if err != nil {
		return nil, err
	}
	var stored container.NodePool
	if err := json.Unmarshal(b, &stored); err != nil {
		return nil, err
	}
	g.created = append(g.created, createCall{cluster: cluster, pool: &stored, json: string(b)})
	running := stored
	running.Status = "RUNNING"
	g.pools[cluster+"/nodePools/"+pool.Name] = &running
	if g.createOp != nil {
		return g.createOp, nil
	}
	return &container.Operation{Name: "op-create", OperationType: "CREATE_NODE_POOL", Status: "DONE"}, nil
}

func (g *fakeGKE) GetCluster(_ context.Context, name string) (*container.Cluster, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.clusterGets++
	if g.getErr != nil {
		return nil, g.getErr
	}
	return &container.Cluster{Name: name, CurrentMasterVersion: g.version}, nil
}

func (g *fakeGKE) GetNodePool(_ context.Context, name string) (*container.NodePool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.poolGets++
	if g.getErr != nil {
		return nil, g.getErr
	}
	p, ok := g.pools[name]
	if !ok {
		return nil, notFound(name)
	}
	cp := *p
	return &cp, nil
}

func (g *fakeGKE) UpdateNodePool(_ context.Context, name string, req *container.UpdateNodePoolRequest) (*container.Operation, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	b, _ := json.Marshal(req)
	g.events = append(g.events, "updateNodePool "+string(b))
	p, ok := g.pools[name]
	if !ok {
		return nil, notFound(name)
	}
	cfg := *p.Config
	if req.Labels != nil {
		cfg.Labels, cfg.Taints = req.Labels.Labels, req.Taints.Taints
	}
	if req.ResourceLabels != nil {
		cfg.ResourceLabels = req.ResourceLabels.Labels
	}
	p.Config = &cfg
	return &container.Operation{Name: "op-update", Status: "DONE"}, nil
}

func (g *fakeGKE) SetNodePoolManagement(_ context.Context, name string, req *container.SetNodePoolManagementRequest) (*container.Operation, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	b, _ := json.Marshal(req)
	g.events = append(g.events, "setManagement "+string(b))
	p, ok := g.pools[name]
	if !ok {
		return nil, notFound(name)
	}
	m := *req.Management
	p.Management = &m
	return &container.Operation{Name: "op-management", Status: "DONE"}, nil
}

// count is how many times the fake recorded the event.
func (g *fakeGKE) count(event string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, ev := range g.events {
		if ev == event {
			n++
		}
	}
	return n
}

func (g *fakeGKE) ListNodePools(_ context.Context, cluster string) ([]*container.NodePool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.events = append(g.events, "listNodePools")
	if g.listErr != nil {
		return nil, g.listErr
	}
	var out []*container.NodePool
	for name, p := range g.pools {
		if strings.HasPrefix(name, cluster+"/nodePools/") {
			cp := *p
			out = append(out, &cp)
		}
	}
	return out, nil
}

func (g *fakeGKE) DeleteNodePool(_ context.Context, name string) (*container.Operation, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.events = append(g.events, "delete")
	g.deletedNames = append(g.deletedNames, name)
	if g.deleteErr != nil {
		return nil, g.deleteErr
	}
	if _, ok := g.pools[name]; !ok {
		return nil, notFound(name)
	}
	delete(g.pools, name)
	if g.deleteOp != nil {
		return g.deleteOp, nil
	}
	return &container.Operation{Name: "op-delete", OperationType: "DELETE_NODE_POOL", Status: "DONE"}, nil
}

func (g *fakeGKE) GetOperation(_ context.Context, name string) (*container.Operation, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.events = append(g.events, "getOperation")
	g.opNames = append(g.opNames, name)
	if g.opErr != nil {
		return nil, g.opErr
	}
	if len(g.ops) == 0 {
		return nil, fmt.Errorf("fake: no operation scripted for %s", name)
	}
	op := g.ops[0]
	if len(g.ops) > 1 {
		g.ops = g.ops[1:]
	}
	return op, nil
}

func (g *fakeGKE) operationNames() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.opNames...)
}

// newTestEngine is the engine New builds, over the fakes, that polls
// operations every few milliseconds and does not wait for a selection to
// settle. Without kube, the cluster cannot be reached.
func newTestEngine(c *fakeCompute, g *fakeGKE, kube kubernetes.Interface) *Engine {
	return newEngineOver(c, g, func(context.Context) (Cluster, error) {
		if kube == nil {
			return nil, errors.New("this test has no Kubernetes cluster")
		}
		return kernel.NewCluster(kube, newDynamic()), nil
	})
}

// newEngineOver is newTestEngine over any GKE and cluster clients; a nil
// cluster is one that cannot be reached.
func newEngineOver(c Compute, g GKE, cluster func(context.Context) (Cluster, error)) *Engine {
	if cluster == nil {
		cluster = func(context.Context) (Cluster, error) { return nil, errors.New("this test has no Kubernetes cluster") }
	}
	e := New(c, g, ClusterRef{}, cluster)
	e.pollInitial, e.pollMax, e.selectionSettle = time.Millisecond, 5*time.Millisecond, 0
	return e
}

// bindCluster binds e to the GKE cluster named name, as New does.
func bindCluster(e *Engine, name string) *Engine {
	e.reads.ref = ClusterRef{Name: name}
	return e
}

// setCluster makes cluster the engine's clients of the cluster, for its
// reads as for the rest.
func setCluster(e *Engine, cluster func(context.Context) (Cluster, error)) {
	e.cluster, e.reads.cluster = cluster, cluster
}

// setGKE makes gke the engine's GKE API, for its reads as for the rest.
func setGKE(e *Engine, gke GKE) {
	e.gke, e.reads.gke = gke, gke
}

// useInventory makes inv the engine's inventory, as if built over the
// engine's cluster.
func useInventory(e *Engine, inv *clusterCache) {
	e.reads.mu.Lock()
	e.reads.inv = inv
	e.reads.mu.Unlock()
}

// inventoryFails makes the engine's inventory fail to be built with err,
// as when the cluster's clients cannot be made for it; an inventory built
// before is dropped.
func inventoryFails(e *Engine, err error) {
	e.reads.mu.Lock()
	e.reads.inv = nil
	e.reads.cluster = func(context.Context) (Cluster, error) { return nil, err }
	e.reads.mu.Unlock()
}

// unlistedNodesAfter bounds the inventory's first list of the nodes, in
// tests whose API server refuses it.
const unlistedNodesAfter = 100 * time.Millisecond

// nodeOpt shapes a test node.
type nodeOpt func(*corev1.Node)

// testNode is a node of pool; without options it is NotReady and has no
// partition labels.
func testNode(name, pool string, opts ...nodeOpt) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{wellknown.LabelNodePool: pool}},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse},
			{Type: corev1.NodeReady, Status: corev1.ConditionFalse},
		}},
	}
	for _, o := range opts {
		o(n)
	}
	return n
}

func ready(n *corev1.Node) {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			n.Status.Conditions[i].Status = corev1.ConditionTrue
		}
	}
}

// partition labels the node with the newest partition label names.
func partition(id, state string) nodeOpt {
	return labelled(wellknown.PartitionIDLabels[0], id, wellknown.PartitionStateLabels[0], state)
}

func labelled(kv ...string) nodeOpt {
	return func(n *corev1.Node) {
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func onSubBlock(physical string) nodeOpt { return labelled(wellknown.LabelTopologySubBlock, physical) }

// newKube is a fake clientset holding nodes. Its node watches behave as
// the API server's do (see watchLikeTheAPIServer). watching is closed once
// the first node watch is registered, so that a test changes nodes only
// when the engine cannot miss the change.
func newKube(nodes ...*corev1.Node) (kube *fake.Clientset, watching <-chan struct{}) {
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
		w, err := watchLikeTheAPIServer(kube.Tracker(), wa.GetResource(), nodeKind, wa.ListOptions, &corev1.Node{})
		once.Do(func() { close(ch) })
		return true, w, err
	})
	return kube, ch
}

// newDynamic is a fake dynamic client that serves Slices, with watches
// that behave as the API server's.
func newDynamic(slices ...runtime.Object) *dynamicfake.FakeDynamicClient {
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{SliceGVR: "SliceList"}, slices...)
	sliceKind := SliceGVR.GroupVersion().WithKind("Slice")
	dyn.PrependWatchReactor("slices", func(action k8stesting.Action) (bool, watch.Interface, error) {
		wa, ok := action.(k8stesting.WatchActionImpl)
		if !ok {
			return false, nil, nil
		}
		bookmark := &unstructured.Unstructured{}
		w, err := watchLikeTheAPIServer(dyn.Tracker(), wa.GetResource(), sliceKind, wa.ListOptions, bookmark)
		return true, w, err
	})
	return dyn
}

// newInventory is an inventory over kube and no Slices; it stops when the
// test ends.
func newInventory(t *testing.T, kube kubernetes.Interface) *clusterCache {
	t.Helper()
	inv := newClusterCache(kernel.NewCluster(kube, newDynamic()))
	t.Cleanup(inv.Stop)
	return inv
}

// watchLikeTheAPIServer watches a tracker's objects of one kind as the API
// server does: it honours the label selector, and with SendInitialEvents
// (client-go's WatchList, on by default since v0.35) it first streams the
// matching objects and then the initial-events-end bookmark, which it
// makes from bookmark (an empty object of the kind).
func watchLikeTheAPIServer(tracker k8stesting.ObjectTracker, gvr schema.GroupVersionResource, kind schema.GroupVersionKind, opts metav1.ListOptions, bookmark runtime.Object) (watch.Interface, error) {
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

// syncedInventory is an inventory whose caches hold nodes and Slices
// already, as after its first list.
func syncedInventory(nodes []*corev1.Node, slices []*unstructured.Unstructured) *clusterCache {
	inv := &clusterCache{started: true, nodes: cache.NewIndexer(cache.MetaNamespaceKeyFunc, nodeIndexers), slices: cache.NewStore(cache.MetaNamespaceKeyFunc)}
	for _, n := range nodes {
		_ = inv.nodes.Add(n)
	}
	for _, s := range slices {
		_ = inv.slices.Add(s)
	}
	synced := func() bool { return true }
	inv.nodeSync = &informerSync{what: "nodes", resource: "nodes", synced: synced}
	inv.sliceSync = &informerSync{what: "Slices", resource: "slices.accelerator.gke.io", synced: synced}
	return inv
}

// benchSlice is a Slice object holding the given partitions.
func benchSlice(name string, ids ...string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "accelerator.gke.io/v1beta1",
		"kind":       "Slice",
		"metadata":   map[string]any{"name": name},
		"spec":       map[string]any{"type": "tpu7x", "topology": "4x4x4"},
	}}
	_ = unstructured.SetNestedStringSlice(u.Object, ids, "spec", "partitionIds")
	return u
}

// tpuTopo is the tpu7x topology s, parsed.
func tpuTopo(t *testing.T, s string) topology.Topology {
	t.Helper()
	topo, err := topology.ParseTPU7x(s)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}
