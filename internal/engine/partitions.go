package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// SliceGVR is the Slice custom resource (accelerator.gke.io/v1beta1).
var SliceGVR = schema.GroupVersionResource{Group: "accelerator.gke.io", Version: "v1beta1", Resource: "slices"}

// Labels the slice controller puts on the nodes of a formed slice.
const (
	LabelSlice         = "cloud.google.com/gke-tpu-slice"
	LabelSliceTopology = "cloud.google.com/gke-tpu-topology"
)

// Partition is a partition of one shape (a 4x4x4 sub-block, or one of the
// sub-slice shapes inside it) as its nodes' labels describe it.
type Partition struct {
	ID, State string
	// Shape is the partition's shape: 4x4x4, 2x4x4, 2x2x4, 2x2x2 or 2x2x1.
	Shape    string
	NodePool string
	// Block and SubBlock are the nodes' gce-topology labels: opaque IDs
	// of the physical block and sub-block.
	Block, SubBlock string
	// Parent is the 4x4x4 partition (the sub-block) that holds it; a 4x4x4
	// partition is its own parent.
	Parent string
	// Ancestors are the partitions that hold it, from the 4x4x4 down to the
	// shape just larger than its own, and AncestorFree the number of their
	// nodes that no slice holds.
	Ancestors    []string
	AncestorFree []int
	NodeNames    []string
	Nodes, Ready int
	// Free is the number of its nodes that no slice holds.
	Free int
	// Slice is the slice that holds the partition or one overlapping it:
	// one whose spec lists either, or whose label its nodes carry. Empty
	// when none. SlicePartition is the partition that slice lists (this
	// one, or the overlapping one); empty when only a node label says so.
	Slice, SlicePartition string
	// KueueWorkload is "namespace/name" of the Kueue workload whose
	// admission check made that slice; empty when Kueue does not own it.
	KueueWorkload string
}

// HeldBy describes what holds the partition, for messages: "slice s", or
// "Kueue workload ns/name (slice s)".
func (p Partition) HeldBy() string {
	if p.KueueWorkload != "" {
		return "Kueue workload " + p.KueueWorkload + " (slice " + p.Slice + ")"
	}
	return "slice " + p.Slice
}

// Overlapped says whether the partition is held through another partition
// that overlaps it (a sub-slice inside it, or a larger slice around it).
func (p Partition) Overlapped() bool {
	return p.Slice != "" && p.SlicePartition != "" && p.SlicePartition != p.ID
}

// Inventory keeps the cluster's nodes and Slices in memory, listed once
// (in pages) and then watched, for the whole provider process: every
// resource and data source of a plan reads partitions from it instead of
// listing nodes again.
type Inventory struct {
	cluster Cluster
	// FirstListTimeout bounds the first list of the nodes and of the
	// Slices; 0 means DefaultFirstListTimeout. Set it before first use.
	FirstListTimeout time.Duration

	mu      sync.Mutex
	started bool
	// claims maps partition IDs to the slice this process chose them for
	// (at plan or apply), before any Slice object shows them: two slices
	// planned or created in one run never choose the same partitions.
	claims map[string]string
	// selecting serializes choosing partitions and claiming them.
	selecting sync.Mutex
	nodes     cache.Indexer // indexed by node pool (byNodePool)
	slices    cache.Store
	// infos caches what grouping reads from each node's labels, by node
	// object: the informer replaces the object when the node changes, so
	// an entry is never stale. Selections and data sources of a plan read
	// the nodes many times while they stay the same.
	infoMu sync.Mutex
	infos  map[*corev1.Node]*nodeInfo
	// nodeSync and sliceSync follow each informer's first list: node pool
	// reads wait for the nodes only, never for the Slices.
	nodeSync, sliceSync *informerSync
	stop                chan struct{}
}

// NewInventory returns an inventory that starts on first use.
func NewInventory(c Cluster) *Inventory {
	return &Inventory{cluster: c}
}

// byNodePool indexes the inventory's nodes by their node pool label.
const byNodePool = "nodePool"

var nodeIndexers = cache.Indexers{byNodePool: func(obj any) ([]string, error) {
	if n, ok := obj.(*corev1.Node); ok && n.Labels[LabelNodePool] != "" {
		return []string{n.Labels[LabelNodePool]}, nil
	}
	return nil, nil
}}

// listPageSize bounds each page of the initial list of nodes.
const listPageSize = 500

func (inv *Inventory) start() {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.started {
		return
	}
	inv.stop = make(chan struct{})
	host := hostOf(inv.cluster)
	nodeSync := &informerSync{what: "nodes", resource: "nodes", host: host, limit: inv.FirstListTimeout}
	sliceSync := &informerSync{what: "Slices", resource: SliceGVR.Resource + "." + SliceGVR.Group, host: host, limit: inv.FirstListTimeout}
	nodeLW := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			if o.Limit == 0 {
				o.Limit = listPageSize // a full pod has 2304 nodes: list them in pages
			}
			list, err := inv.cluster.Nodes().List(ctx, o)
			return list, nodeSync.noAnswer(ctx, err)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			w, err := inv.cluster.Nodes().Watch(ctx, o)
			return w, nodeSync.noAnswer(ctx, err)
		},
	}
	nodeInformer := cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(nodeLW, inv.cluster), &corev1.Node{}, 0, nodeIndexers)
	sliceLW := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			list, err := inv.cluster.Slices().List(ctx, o)
			return list, sliceSync.noAnswer(ctx, err)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			w, err := inv.cluster.Slices().Watch(ctx, o)
			return w, sliceSync.noAnswer(ctx, err)
		},
	}
	sliceInformer := cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(sliceLW, inv.cluster), &unstructured.Unstructured{}, 0, cache.Indexers{})
	nodeSync.synced, sliceSync.synced = nodeInformer.HasSynced, sliceInformer.HasSynced
	inv.nodeSync, inv.sliceSync = nodeSync, sliceSync
	// The handlers are set before the informers run, so they cannot fail.
	_ = nodeInformer.SetWatchErrorHandlerWithContext(inv.nodeSync.record)
	_ = sliceInformer.SetWatchErrorHandlerWithContext(inv.sliceSync.record)
	inv.nodes, inv.slices = nodeInformer.GetIndexer(), sliceInformer.GetStore()
	go nodeInformer.RunWithContext(contextFromStop(inv.stop))
	go sliceInformer.RunWithContext(contextFromStop(inv.stop))
	inv.started = true
}

// Stop ends the inventory's watches. A later read starts them again.
func (inv *Inventory) Stop() {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.started && inv.stop != nil {
		close(inv.stop)
		inv.started = false
	}
}

// startNodes starts the inventory and waits for its first list of nodes.
func (inv *Inventory) startNodes(ctx context.Context) error {
	inv.start()
	return waitSynced(ctx, inv.nodeSync)
}

// startAll starts the inventory and waits for its first lists of nodes
// and Slices.
func (inv *Inventory) startAll(ctx context.Context) error {
	inv.start()
	return waitSynced(ctx, inv.nodeSync, inv.sliceSync)
}

func contextFromStop(stop chan struct{}) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-stop
		cancel()
	}()
	return ctx
}

// Nodes returns the cached nodes that have all the given labels (any value
// when a value is empty).
func (inv *Inventory) Nodes(ctx context.Context, labels map[string]string) ([]*corev1.Node, error) {
	if err := inv.startNodes(ctx); err != nil {
		return nil, err
	}
	var objs []any
	if pool := labels[LabelNodePool]; pool != "" {
		// A pool's 16 nodes, not a scan of the pod's 2304 for each pool.
		var err error
		if objs, err = inv.nodes.ByIndex(byNodePool, pool); err != nil {
			return nil, err
		}
	} else {
		objs = inv.nodes.List()
	}
	var out []*corev1.Node
	for _, o := range objs {
		n, ok := o.(*corev1.Node)
		if !ok {
			continue
		}
		match := true
		for k, v := range labels {
			if got, has := n.Labels[k]; !has || (v != "" && got != v) {
				match = false
				break
			}
		}
		if match {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Slice returns the cached Slice of that name, and whether there is one.
func (inv *Inventory) Slice(ctx context.Context, name string) (*unstructured.Unstructured, bool) {
	u, ok, _ := inv.lookupSlice(ctx, name)
	return u, ok
}

// lookupSlice is Slice with the error of a first list that failed.
func (inv *Inventory) lookupSlice(ctx context.Context, name string) (*unstructured.Unstructured, bool, error) {
	if err := inv.startAll(ctx); err != nil {
		return nil, false, err
	}
	o, ok, err := inv.slices.GetByKey(name)
	if err != nil || !ok {
		return nil, false, err
	}
	u, ok := o.(*unstructured.Unstructured)
	return u, ok, nil
}

// Claim records that this process chose ids for the named slice,
// replacing what it chose for that slice before.
func (inv *Inventory) Claim(slice string, ids []string) {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.claims == nil {
		inv.claims = map[string]string{}
	}
	for id, s := range inv.claims {
		if s == slice {
			delete(inv.claims, id)
		}
	}
	for _, id := range ids {
		inv.claims[id] = slice
	}
}

// SelectAndClaim chooses partitions for a slice and claims them, as one
// step: concurrent selections in this process see each other's choices.
func (inv *Inventory) SelectAndClaim(ctx context.Context, req SelectRequest) ([]string, []Partition, error) {
	inv.selecting.Lock()
	defer inv.selecting.Unlock()
	parts, err := inv.PartitionsOf(ctx, req.shape())
	if err != nil {
		return nil, nil, err
	}
	ids, err := Select(parts, req)
	if err == nil {
		inv.Claim(req.Slice, ids)
	}
	return ids, parts, err
}

// Partitions groups the cached nodes into 4x4x4 partitions, sorted by ID.
func (inv *Inventory) Partitions(ctx context.Context) ([]Partition, error) {
	return inv.PartitionsOf(ctx, topology.PartitionTopology)
}

// PartitionsOf groups the cached nodes into partitions of the shape,
// sorted by ID.
func (inv *Inventory) PartitionsOf(ctx context.Context, shape string) ([]Partition, error) {
	if err := inv.startAll(ctx); err != nil {
		return nil, err
	}
	return inv.partitions(shape), nil
}

// partitionsOfNodes is Partitions without waiting for the Slices: the
// slices that hold partitions are known only once the Slices are listed.
// Node pool reads use it, so that they never wait on the Slice API.
func (inv *Inventory) partitionsOfNodes(ctx context.Context) ([]Partition, error) {
	if err := inv.startNodes(ctx); err != nil {
		return nil, err
	}
	return inv.partitions(topology.PartitionTopology), nil
}

func (inv *Inventory) partitions(shape string) []Partition {
	return inv.withOwners(groupInfos(inv.nodeInfos(), shape, inv.holders(false)))
}

// withOwners fills in the Kueue workload of every partition held by a
// Slice that Kueue's admission check made.
func (inv *Inventory) withOwners(parts []Partition) []Partition {
	owners := map[string]string{}
	for _, o := range inv.slices.List() {
		if u, ok := o.(*unstructured.Unstructured); ok {
			if w := kueueOwner(u); w != "" {
				owners[u.GetName()] = w
			}
		}
	}
	if len(owners) == 0 {
		return parts
	}
	for i := range parts {
		if parts[i].Slice != "" {
			parts[i].KueueWorkload = owners[parts[i].Slice]
		}
	}
	return parts
}

// nodeInfos is what grouping needs of every cached node, each node's
// labels read once per version of the node.
func (inv *Inventory) nodeInfos() []nodeInfo {
	nodes := inv.nodeList()
	out := make([]nodeInfo, len(nodes))
	inv.infoMu.Lock()
	defer inv.infoMu.Unlock()
	missed := len(inv.infos) != len(nodes)
	for i, n := range nodes {
		if in, ok := inv.infos[n]; ok {
			out[i] = *in
			continue
		}
		out[i], missed = infoOf(n), true
	}
	if missed { // keep only the nodes of this version
		inv.infos = make(map[*corev1.Node]*nodeInfo, len(nodes))
		for i, n := range nodes {
			inv.infos[n] = &out[i]
		}
	}
	return out
}

// livePartitionsOf is PartitionsOf where only live slices hold partitions:
// a FAILED slice, or one that failed to be created and will not retry,
// holds nothing (the slice controller lets another slice use its nodes).
// A create that lists its partitions is checked against these, so that it
// is refused only where the controller would refuse it; selection keeps
// off every slice's partitions.
func (inv *Inventory) livePartitionsOf(ctx context.Context, shape string) ([]Partition, error) {
	if err := inv.startAll(ctx); err != nil {
		return nil, err
	}
	return inv.withOwners(groupInfos(inv.nodeInfos(), shape, inv.holders(true))), nil
}

func (inv *Inventory) nodeList() []*corev1.Node {
	objs := inv.nodes.List()
	nodes := make([]*corev1.Node, 0, len(objs))
	for _, o := range objs {
		if n, ok := o.(*corev1.Node); ok {
			nodes = append(nodes, n)
		}
	}
	return nodes
}

// holders maps every partition ID (of any shape) that a Slice lists, or
// that this process claimed for a slice, to that slice; with liveOnly,
// Slices that failed for good are left out.
func (inv *Inventory) holders(liveOnly bool) map[string]string {
	users := map[string]string{}
	inv.mu.Lock()
	for id, slice := range inv.claims {
		users[id] = slice
	}
	inv.mu.Unlock()
	for _, o := range inv.slices.List() {
		u, ok := o.(*unstructured.Unstructured)
		if !ok || u.GetDeletionTimestamp() != nil {
			continue
		}
		if liveOnly {
			if s := sliceOf(u); s.State == SliceFailed || (s.State == SliceCreationFailed && !s.RetryOnFailure) {
				continue
			}
		}
		ids, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "partitionIds")
		for _, id := range ids {
			users[id] = u.GetName()
		}
	}
	return users
}

// GroupPartitions groups nodes into 4x4x4 partitions. users maps partition
// IDs to the slice whose spec lists them.
func GroupPartitions(nodes []*corev1.Node, users map[string]string) []Partition {
	return GroupShape(nodes, topology.PartitionTopology, users)
}

// shapeLabel is a partition shape with its node label names, computed
// once: grouping reads them for every node of a full pod.
type shapeLabel struct{ shape, id, state string }

// shapeLabels are every partition shape's labels, largest (4x4x4) first;
// nodeInfo's ids and states are in this order.
var shapeLabels = func() []shapeLabel {
	out := make([]shapeLabel, 0, len(topology.PartitionShapes))
	for i := len(topology.PartitionShapes) - 1; i >= 0; i-- {
		s := topology.PartitionShapes[i]
		out = append(out, shapeLabel{s, topology.PartitionIDLabel(s), topology.PartitionStateLabel(s)})
	}
	return out
}()

const numShapes = 5

// idOf is the node's partition ID of the shape; 4x4x4 under any of its
// label names.
func (l shapeLabel) idOf(n *corev1.Node) string {
	if l.shape == topology.PartitionTopology {
		return PartitionID(n)
	}
	return n.Labels[l.id]
}

func (l shapeLabel) stateOf(n *corev1.Node) string {
	if l.shape == topology.PartitionTopology {
		return PartitionState(n)
	}
	return n.Labels[l.state]
}

// nodeInfo is what grouping reads of a node, each label read once.
type nodeInfo struct {
	name                              string
	ids, states                       [numShapes]string // in shapeLabels order
	pool, block, subBlock, sliceLabel string
	ready                             bool
}

func infosOf(nodes []*corev1.Node) []nodeInfo {
	out := make([]nodeInfo, len(nodes))
	for i, n := range nodes {
		out[i] = infoOf(n)
	}
	return out
}

func infoOf(n *corev1.Node) nodeInfo {
	in := nodeInfo{name: n.Name, ready: NodeReady(n), sliceLabel: n.Labels[LabelSlice],
		pool: n.Labels[LabelNodePool], block: n.Labels[LabelTopologyBlock], subBlock: n.Labels[LabelTopologySubBlock]}
	for k, l := range shapeLabels {
		in.ids[k], in.states[k] = l.idOf(n), l.stateOf(n)
	}
	return in
}

// holder is the slice that holds a node, and the partition it lists that
// holds it: a partition of any shape that the node is in, or (with no
// partition) the slice label the controller put on the node.
func (in *nodeInfo) holder(users map[string]string) (slice, partition string) {
	if len(users) > 0 {
		for _, id := range in.ids {
			if id != "" {
				if s := users[id]; s != "" {
					return s, id
				}
			}
		}
	}
	return in.sliceLabel, ""
}

// heldBefore says whether a holder (slice, and the partition it lists)
// should be reported rather than the current one, so that the report does
// not depend on the order of the nodes: any holder before none, a slice
// that lists a partition before a node label, then the first slice by name.
func heldBefore(slice, partition, curSlice, curPartition string) bool {
	switch {
	case curSlice == "":
		return true
	case (partition != "") != (curPartition != ""):
		return partition != ""
	}
	return slice < curSlice
}

// GroupShape groups nodes by their partition of the shape, sorted by ID.
// users maps partition IDs of any shape to the slice whose spec lists
// them: a partition is held when any of its nodes is, so a sub-slice holds
// the 4x4x4 around it and a super-slice every sub-partition inside it.
func GroupShape(nodes []*corev1.Node, shape string, users map[string]string) []Partition {
	return groupInfos(infosOf(nodes), shape, users)
}

func groupInfos(nodes []nodeInfo, shape string, users map[string]string) []Partition {
	own := -1 // the shape's index in shapeLabels; the ones before are larger
	for k, l := range shapeLabels {
		if l.shape == shape {
			own = k
		}
	}
	if own < 0 {
		return nil
	}
	type held struct{ slice, partition string }
	holders := make([]held, len(nodes))
	free := make(map[string]int, len(nodes)/2) // partition ID (a larger shape) → its free nodes
	for i := range nodes {
		s, id := nodes[i].holder(users)
		holders[i] = held{s, id}
		if s == "" {
			for _, aid := range nodes[i].ids[:own] {
				if aid != "" {
					free[aid]++
				}
			}
		}
	}
	// Partitions, their ancestors and free counts are carved out of a few
	// large allocations: a full pod has 2304 partitions of 2x2x1.
	hosts := max(topology.HostsOfShape(shape), 1)
	store := make([]Partition, 0, len(nodes)/hosts+1)
	byID := make(map[string]int, len(nodes)/hosts+1)
	var ancestors []string
	for i := range nodes {
		n := &nodes[i]
		id := n.ids[own]
		if id == "" {
			continue
		}
		k, seen := byID[id]
		if !seen {
			k = len(store)
			byID[id] = k
			p := Partition{ID: id, Shape: shape, Parent: n.ids[0], NodeNames: make([]string, 0, hosts),
				NodePool: n.pool, Block: n.block, SubBlock: n.subBlock}
			if own > 0 {
				if cap(ancestors)-len(ancestors) < own {
					ancestors = make([]string, 0, own*(cap(store)+1))
				}
				start := len(ancestors)
				ancestors = append(ancestors, n.ids[:own]...)
				p.Ancestors = ancestors[start:len(ancestors):len(ancestors)]
			}
			store = append(store, p)
		}
		p := &store[k]
		p.Nodes++
		p.NodeNames = append(p.NodeNames, n.name)
		if n.ready {
			p.Ready++
		}
		if s := n.states[own]; p.State == "" || worse(s, p.State) {
			p.State = s
		}
		if p.NodePool == "" {
			p.NodePool = n.pool
		}
		if p.Block == "" {
			p.Block, p.SubBlock = n.block, n.subBlock
		}
		if h := holders[i]; h.slice == "" {
			p.Free++
		} else if heldBefore(h.slice, h.partition, p.Slice, p.SlicePartition) {
			p.Slice, p.SlicePartition = h.slice, h.partition
		}
	}
	freeCounts := make([]int, len(store)*own)
	order := make([]*Partition, len(store))
	for k := range store {
		p := &store[k]
		if len(p.NodeNames) > 1 {
			sort.Strings(p.NodeNames)
		}
		if own > 0 {
			p.AncestorFree = freeCounts[k*own : (k+1)*own : (k+1)*own]
			for i, a := range p.Ancestors {
				p.AncestorFree[i] = free[a]
			}
		}
		order[k] = p
	}
	sort.Slice(order, func(i, j int) bool { return order[i].ID < order[j].ID })
	out := make([]Partition, len(order))
	for i, p := range order {
		out[i] = *p
	}
	return out
}

// stateRank orders partition states from usable to not: a partition's
// state is the worst its nodes report.
var stateRank = map[string]int{PartitionHealthy: 0, PartitionDegraded: 1, PartitionUnset: 2, PartitionIncomplete: 3, PartitionUnhealthy: 4}

func worse(a, b string) bool {
	ra, ok := stateRank[a]
	if !ok {
		ra = 5
	}
	rb, ok := stateRank[b]
	if !ok {
		rb = 5
	}
	return ra > rb
}

// PartitionFilter says which partitions ListPartitions returns; zero
// values match every partition.
type PartitionFilter struct {
	// Shape is the partitions' shape; empty means 4x4x4.
	Shape             string
	NodePools, States []string
	Block             string
	// AvailableOnly keeps the partitions a new slice could use (Unusable
	// with DEGRADED allowed).
	AvailableOnly bool
}

// ListPartitions returns the cluster's partitions that pass f, sorted by
// ID, from the process-wide inventory.
func (e *Engine) ListPartitions(ctx context.Context, f PartitionFilter) ([]Partition, error) {
	if e.inventory == nil {
		return nil, fmt.Errorf("the cluster's partitions cannot be listed")
	}
	inv, err := e.inventory(ctx)
	if err != nil {
		return nil, err
	}
	shape := f.Shape
	if shape == "" {
		shape = topology.PartitionTopology
	}
	if !topology.IsPartitionShape(shape) {
		return nil, fmt.Errorf("%q is not a partition shape; the shapes are %s", shape, strings.Join(topology.PartitionShapes, ", "))
	}
	parts, err := inv.PartitionsOf(ctx, shape)
	if err != nil {
		return nil, err
	}
	pools, states := setOf(f.NodePools), setOf(f.States)
	out := make([]Partition, 0, len(parts))
	for _, p := range parts {
		if (len(pools) > 0 && !pools[p.NodePool]) || (len(states) > 0 && !states[p.State]) ||
			(f.Block != "" && p.Block != f.Block) || (f.AvailableOnly && p.Unusable("", true) != "") {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

func setOf(values []string) map[string]bool {
	out := make(map[string]bool, len(values))
	for _, v := range values {
		out[v] = true
	}
	return out
}

// maxSummarised bounds the partitions a summary names one by one.
const maxSummarised = 10

// UnhealthyPartitionsOnce summarises, once per provider process, the
// cluster's partitions that are not HEALTHY with every node Ready: the
// first call that finds any returns the summary, every later call "". A
// plan of 144 pools then says it once, not once per pool.
func (e *Engine) UnhealthyPartitionsOnce(ctx context.Context) string {
	e.invMu.Lock()
	done := e.unhealthyReported
	e.invMu.Unlock()
	if done {
		return ""
	}
	if e.inventory == nil {
		return ""
	}
	inv, err := e.inventory(ctx)
	if err != nil {
		return ""
	}
	parts, err := inv.partitionsOfNodes(ctx)
	if err != nil {
		return ""
	}
	var bad []Partition
	for _, p := range parts {
		if p.State != PartitionHealthy || p.Ready < p.Nodes {
			bad = append(bad, p)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	e.invMu.Lock()
	defer e.invMu.Unlock()
	if e.unhealthyReported {
		return ""
	}
	e.unhealthyReported = true
	var b strings.Builder
	fmt.Fprintf(&b, "%d of the cluster's %d partitions are not HEALTHY with every node Ready:", len(bad), len(parts))
	for i, p := range bad {
		if i == maxSummarised {
			fmt.Fprintf(&b, "\n  and %d more (data source gke_partitions lists them all)", len(bad)-maxSummarised)
			break
		}
		state := p.State
		if state == "" {
			state = "no state label"
		}
		fmt.Fprintf(&b, "\n  node pool %s, partition %s: %s, %d/%d nodes Ready", p.NodePool, p.ID, state, p.Ready, p.Nodes)
		if p.Slice != "" {
			fmt.Fprintf(&b, ", used by slice %s", p.Slice)
		}
	}
	return b.String()
}
