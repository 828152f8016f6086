package clusterread

import (
	"context"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Inventory is the engine's inventory of the cluster: it keeps the
// cluster's nodes and Slices in memory, listed once (in pages) and then
// watched, for the whole provider process: every resource and data source
// of a plan reads partitions from it instead of listing nodes again.
type Inventory struct {
	cluster kernel.Cluster
	// opts bound the first lists of the nodes and of the Slices.
	opts Options

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
	// all is every node's info, in the informer's order, and byShape, for
	// each shape grouped since the nodes last changed, the indexes of all
	// in the order of the shape's partition IDs: grouping then meets the
	// partitions in ID order and sorts nothing.
	all     []nodeInfo
	byShape map[string][]int32
	// nodeSync and sliceSync follow each informer's first list: node pool
	// reads wait for the nodes only, never for the Slices.
	nodeSync, sliceSync *informerSync
	// sliceInformer is the one watch of the Slices, which Slice waits
	// follow (AwaitSlice); sliceHealth says whether it follows the cluster
	// now. Both are nil in a Fixed inventory.
	sliceInformer cache.SharedIndexInformer
	sliceHealth   *informerHealth
	stop          chan struct{}
}

// NewInventory returns an inventory over c that starts on first use; the
// waits for its first lists are bounded by o's FirstListTimeout and
// SyncGrace (o.Inventory is not read).
func NewInventory(c kernel.Cluster, o Options) *Inventory {
	return &Inventory{cluster: c, opts: o}
}

// byNodePool indexes the inventory's nodes by their node pool label.
const byNodePool = "nodePool"

var nodeIndexers = cache.Indexers{byNodePool: func(obj any) ([]string, error) {
	if n, ok := obj.(*corev1.Node); ok && n.Labels[wellknown.LabelNodePool] != "" {
		return []string{n.Labels[wellknown.LabelNodePool]}, nil
	}
	return nil, nil
}}

// slimNode drops what the engine never reads from a cached node, and
// never writes back (it writes no node): its managed fields and its
// container image list, which on a busy real node runs to kilobytes. The
// cache of a full pod's 2304 nodes keeps labels, taints, capacity and
// conditions.
func slimNode(obj any) (any, error) {
	if n, ok := obj.(*corev1.Node); ok {
		n.ManagedFields = nil
		n.Status.Images = nil
	}
	return obj, nil
}

// listPageSize bounds each page of the initial list of nodes.
const listPageSize = 500

// Start starts the inventory's informers of the nodes and the Slices,
// once, without waiting for their first lists.
func (inv *Inventory) Start() {
	inv.mu.Lock()
	defer inv.mu.Unlock()
	if inv.started {
		return
	}
	inv.stop = make(chan struct{})
	host := kernel.HostOf(inv.cluster)
	// The syncs and the informers refer to each other: the informers'
	// list and watch report to the syncs, which ask the informers whether
	// they have listed.
	var nodeInformer, sliceInformer cache.SharedIndexInformer
	nodeSync := newInformerSync("nodes", "nodes", host, inv.opts, func() bool { return nodeInformer.HasSynced() })
	sliceSync := newInformerSync("Slices", kernel.SliceGVR.Resource+"."+kernel.SliceGVR.Group, host, inv.opts, func() bool { return sliceInformer.HasSynced() })
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
	nodeInformer = cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(nodeLW, inv.cluster), &corev1.Node{}, 0, nodeIndexers)
	_ = nodeInformer.SetTransform(slimNode) // set before it runs: cannot fail
	sliceHealth := newInformerHealth()
	sliceLW := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			list, err := inv.cluster.Slices().List(ctx, o)
			return list, sliceSync.noAnswer(ctx, sliceHealth.list(err))
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			w, err := sliceHealth.watch(inv.cluster.Slices().Watch(ctx, o))
			return w, sliceSync.noAnswer(ctx, err)
		},
	}
	sliceInformer = cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(sliceLW, inv.cluster), &unstructured.Unstructured{}, 0, cache.Indexers{})
	inv.nodeSync, inv.sliceSync = nodeSync, sliceSync
	// The handlers are set before the informers run, so they cannot fail.
	_ = nodeInformer.SetWatchErrorHandlerWithContext(inv.nodeSync.record)
	_ = sliceInformer.SetWatchErrorHandlerWithContext(inv.sliceSync.record)
	inv.nodes, inv.slices = nodeInformer.GetIndexer(), sliceInformer.GetStore()
	inv.sliceInformer, inv.sliceHealth = sliceInformer, sliceHealth
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
	inv.Start()
	return waitSynced(ctx, inv.nodeSync)
}

// StartAll starts the inventory and waits for its first lists of nodes
// and Slices.
func (inv *Inventory) StartAll(ctx context.Context) error {
	inv.Start()
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
	if pool := labels[wellknown.LabelNodePool]; pool != "" {
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
	u, ok, _ := inv.LookupSlice(ctx, name)
	return u, ok
}

// LookupSlice is Slice with the error of a first list that failed.
func (inv *Inventory) LookupSlice(ctx context.Context, name string) (*unstructured.Unstructured, bool, error) {
	if err := inv.StartAll(ctx); err != nil {
		return nil, false, err
	}
	o, ok, err := inv.slices.GetByKey(name)
	if err != nil || !ok {
		return nil, false, err
	}
	u, ok := o.(*unstructured.Unstructured)
	return u, ok, nil
}

// Partitions groups the cached nodes into 4x4x4 partitions, sorted by ID.
func (inv *Inventory) Partitions(ctx context.Context) ([]Partition, error) {
	return inv.PartitionsOf(ctx, topology.PartitionTopology)
}

// PartitionsOf groups the cached nodes into partitions of the shape,
// sorted by ID.
func (inv *Inventory) PartitionsOf(ctx context.Context, shape string) ([]Partition, error) {
	if err := inv.StartAll(ctx); err != nil {
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
	all, order := inv.nodeInfosBy(shape)
	return inv.withOwners(groupInfos(all, order, shape, inv.holders(false)))
}

// withOwners fills in the Kueue workload of every partition held by a
// Slice that Kueue's admission check made.
func (inv *Inventory) withOwners(parts []Partition) []Partition {
	owners := map[string]string{}
	for _, o := range inv.slices.List() {
		if u, ok := o.(*unstructured.Unstructured); ok {
			if w := KueueOwner(u); w != "" {
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

// nodeInfosBy is what grouping needs of every cached node, and the order
// of the shape's partition IDs (indexes of all; nodes without one first).
// Each node's labels are read once per version of the node, and each
// shape's order is made once per set of node versions: a plan's
// selections and data sources read the nodes many times while they stay
// the same. The order is of indexes, so that a shape costs a sort of
// 32-bit integers and no copy of the infos.
func (inv *Inventory) nodeInfosBy(shape string) (all []nodeInfo, order []int32) {
	nodes := inv.nodeList()
	inv.infoMu.Lock()
	defer inv.infoMu.Unlock()
	same := inv.byShape != nil && len(inv.infos) == len(nodes)
	for i := 0; same && i < len(nodes); i++ {
		_, same = inv.infos[nodes[i]]
	}
	if !same { // keep only the nodes of this version
		fresh := make([]nodeInfo, len(nodes))
		for i, n := range nodes {
			if in, ok := inv.infos[n]; ok {
				fresh[i] = *in
			} else {
				fresh[i] = infoOf(n)
			}
		}
		inv.infos = make(map[*corev1.Node]*nodeInfo, len(nodes))
		for i, n := range nodes {
			inv.infos[n] = &fresh[i]
		}
		inv.all, inv.byShape = fresh, map[string][]int32{}
	}
	if order, ok := inv.byShape[shape]; ok {
		return inv.all, order
	}
	own := shapeIndex(shape)
	if own < 0 {
		return inv.all, nil
	}
	inv.byShape[shape] = idOrder(inv.all, own)
	return inv.all, inv.byShape[shape]
}

// LivePartitionsOf is partitionsOf where only live slices hold partitions:
// a FAILED slice, or one that failed to be created and will not retry,
// holds nothing (the slice controller lets another slice use its nodes).
// A create that lists its partitions is checked against these, so that it
// is refused only where the controller would refuse it; selection keeps
// off every slice's partitions.
func (inv *Inventory) LivePartitionsOf(ctx context.Context, shape string) ([]Partition, error) {
	if err := inv.StartAll(ctx); err != nil {
		return nil, err
	}
	all, order := inv.nodeInfosBy(shape)
	return inv.withOwners(groupInfos(all, order, shape, inv.holders(true))), nil
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
