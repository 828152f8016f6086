package clusterread

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

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
	// dra: the node is on GKE's TPU DRA driver (see DeviceAccess).
	dra bool
}

func infosOf(nodes []*corev1.Node) []nodeInfo {
	out := make([]nodeInfo, len(nodes))
	for i, n := range nodes {
		out[i] = infoOf(n)
	}
	return out
}

func infoOf(n *corev1.Node) nodeInfo {
	in := nodeInfo{name: n.Name, ready: NodeReady(n), sliceLabel: n.Labels[wellknown.LabelSlice],
		pool: n.Labels[wellknown.LabelNodePool], block: n.Labels[wellknown.LabelTopologyBlock], subBlock: n.Labels[wellknown.LabelTopologySubBlock],
		dra: n.Labels[wellknown.LabelTPUDRADriver] == "true"}
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
	return groupInfos(infosOf(nodes), nil, shape, users)
}

// groupInfos groups nodes, met in order (indexes of nodes; nil for the
// nodes' own order), into the partitions of the shape.
func groupInfos(nodes []nodeInfo, order []int32, shape string, users map[string]string) []Partition {
	own := shapeIndex(shape)
	if own < 0 {
		return nil
	}
	holders, free := nodeHolders(nodes, own, users)
	store := collectPartitions(nodes, order, shape, own, holders)
	return sortedPartitions(store, own, free)
}

// shapeIndex is the shape's index in shapeLabels (the ones before are
// larger), or -1 when it is not a partition shape.
func shapeIndex(shape string) int {
	own := -1
	for k, l := range shapeLabels {
		if l.shape == shape {
			own = k
		}
	}
	return own
}

// nodeHeld is what holds a node: a slice, and the partition it lists.
type nodeHeld struct{ slice, partition string }

// nodeHolders is what holds each node, and free maps the ID of every
// partition larger than the shape at own to its nodes that nothing holds.
func nodeHolders(nodes []nodeInfo, own int, users map[string]string) (holders []nodeHeld, free map[string]int) {
	holders = make([]nodeHeld, len(nodes))
	free = make(map[string]int, len(nodes)/2) // partition ID (a larger shape) → its free nodes
	for i := range nodes {
		s, id := nodes[i].holder(users)
		holders[i] = nodeHeld{s, id}
		if s == "" {
			for _, aid := range nodes[i].ids[:own] {
				if aid != "" {
					free[aid]++
				}
			}
		}
	}
	return holders, free
}

// idOrder is the indexes of nodes in the order of their partition IDs of
// the shape at own (nodes without one first), nodes of one partition in
// their own order.
func idOrder(nodes []nodeInfo, own int) []int32 {
	order := make([]int32, len(nodes))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := strings.Compare(nodes[a].ids[own], nodes[b].ids[own]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return order
}

// collectPartitions groups the nodes into the partitions of the shape (at
// own), in the order of their first node met in order (see groupInfos),
// with their nodes, state, pool, block and holder.
func collectPartitions(nodes []nodeInfo, order []int32, shape string, own int, holders []nodeHeld) []Partition {
	// Partitions, their ancestors and free counts are carved out of a few
	// large allocations: a full pod has 2304 partitions of 2x2x1.
	hosts := max(topology.HostsOfShape(shape), 1)
	store := make([]Partition, 0, len(nodes)/hosts+1)
	byID := make(map[string]int, len(nodes)/hosts+1)
	var ancestors, names []string
	for j := range nodes {
		i := j
		if order != nil {
			i = int(order[j])
		}
		n := &nodes[i]
		id := n.ids[own]
		if id == "" {
			continue
		}
		k, seen := byID[id]
		if !seen {
			k = len(store)
			byID[id] = k
			if cap(names)-len(names) < hosts {
				names = make([]string, 0, hosts*(cap(store)-len(store)+1))
			}
			p := Partition{ID: id, Shape: shape, Parent: n.ids[0], NodeNames: names[len(names) : len(names) : len(names)+hosts],
				NodePool: n.pool, Block: n.block, SubBlock: n.subBlock}
			names = names[:len(names)+hosts]
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
		addNode(&store[k], n, own, holders[i])
	}
	return store
}

// addNode counts node n (at shape index own, held by h) in partition p.
func addNode(p *Partition, n *nodeInfo, own int, h nodeHeld) {
	p.Nodes++
	p.NodeNames = append(p.NodeNames, n.name)
	if n.ready {
		p.Ready++
	}
	if n.dra {
		p.DRANodes++
	}
	if s := n.states[own]; p.State == "" || Worse(s, p.State) {
		p.State = s
	}
	if p.NodePool == "" {
		p.NodePool = n.pool
	}
	if p.Block == "" {
		p.Block, p.SubBlock = n.block, n.subBlock
	}
	if h.slice == "" {
		p.Free++
	} else if heldBefore(h.slice, h.partition, p.Slice, p.SlicePartition) {
		p.Slice, p.SlicePartition = h.slice, h.partition
	}
}

// sortedPartitions fills in the partitions' ancestors' free counts, sorts
// their node names, and returns them sorted by ID: store itself when it
// is in ID order already (nodes given in the order of the shape's IDs,
// see nodeInfosBy), else a sorted copy.
func sortedPartitions(store []Partition, own int, free map[string]int) []Partition {
	freeCounts := make([]int, len(store)*own)
	inOrder := true
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
		inOrder = inOrder && (k == 0 || store[k-1].ID < p.ID)
	}
	if inOrder {
		return store
	}
	order := make([]*Partition, len(store))
	for k := range store {
		order[k] = &store[k]
	}
	slices.SortFunc(order, func(a, b *Partition) int { return strings.Compare(a.ID, b.ID) })
	out := make([]Partition, len(order))
	for i, p := range order {
		out[i] = *p
	}
	return out
}

// stateRank orders partition states from usable to not: a partition's
// state is the worst its nodes report.
var stateRank = map[string]int{wellknown.PartitionHealthy: 0, wellknown.PartitionDegraded: 1, wellknown.PartitionUnset: 2, wellknown.PartitionIncomplete: 3, wellknown.PartitionUnhealthy: 4}

func Worse(a, b string) bool {
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
