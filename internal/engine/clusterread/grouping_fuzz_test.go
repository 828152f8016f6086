package clusterread

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// nodeListSeed is a NodeList of the labels GKE puts on TPU nodes, as the
// API server answers it in JSON: each node's labels, and whether it is
// Ready.
func nodeListSeed(t testing.TB, nodes ...map[string]string) []byte {
	t.Helper()
	list := corev1.NodeList{}
	for i, labels := range nodes {
		n := corev1.Node{}
		n.Name = "gke-ironwood-np-" + string(rune('a'+i%26))
		n.Labels = labels
		status := corev1.ConditionTrue
		if labels["ready"] == "false" {
			status = corev1.ConditionFalse
		}
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}, {Type: corev1.NodeReady, Status: status}}
		list.Items = append(list.Items, n)
	}
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// held reads "id=slice,id=slice" as the partitions' holders.
func held(s string) map[string]string {
	users := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		if id, slice, ok := strings.Cut(pair, "="); ok {
			users[id] = slice
		}
	}
	return users
}

// readNodes decodes data as the typed client decodes a JSON NodeList, or
// says it does not decode.
func readNodes(data []byte) ([]*corev1.Node, bool) {
	var list corev1.NodeList
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, false
	}
	nodes := make([]*corev1.Node, len(list.Items))
	for i := range list.Items {
		nodes[i] = &list.Items[i]
	}
	return nodes, true
}

// Any JSON as the cluster's nodes, any holders: grouping them into the
// partitions of each shape never panics, and the partitions are sane
// (sorted and unique by ID, each node of an ID in exactly one, counts
// within their nodes, held exactly when not every node is free, ancestors
// as deep as the shape); the nodes encoded and decoded again group the
// same; and the nodes in reverse order group into the same partitions
// with the same counts and holders.
func FuzzGroupShape(f *testing.F) {
	id, state := wellknown.PartitionIDLabels, wellknown.PartitionStateLabels
	sub := topology.PartitionIDLabel(topology.SubSlice2x2x1)
	f.Add(nodeListSeed(f,
		map[string]string{id[0]: "p-1", state[0]: wellknown.PartitionHealthy, wellknown.LabelNodePool: "np-1", wellknown.LabelTopologyBlock: "b1",
			wellknown.LabelTopologySubBlock: "sb1", sub: "p-1-2x2x1-0", topology.PartitionStateLabel(topology.SubSlice2x2x1): wellknown.PartitionHealthy},
		map[string]string{id[1]: "p-1", state[1]: wellknown.PartitionDegraded, wellknown.LabelNodePool: "np-1", sub: "p-1-2x2x1-1", "ready": "false"},
		map[string]string{id[2]: "p-2", state[2]: "UNKNOWN", wellknown.LabelNodePool: "np-2", wellknown.LabelTPUDRADriver: "true"},
		map[string]string{wellknown.LabelNodePool: "cpu", wellknown.LabelSlice: "s9"},
	), "p-1-2x2x1-0=s1,p-2=s2")
	f.Add(nodeListSeed(f, map[string]string{id[0]: "p-1"}, map[string]string{id[0]: "p-1", wellknown.LabelSlice: "s3"}), "p-1=s1")
	f.Add([]byte(`{"items":[{"metadata":{"name":"n","labels":{"`+id[0]+`":""}},"status":{"conditions":[{"type":"Ready"}]}},{}]}`), "=s")
	f.Add([]byte(`{"items":null}`), "")
	f.Add([]byte(`{"items":[{"metadata":{"labels":{"a":1}}}]}`), "")
	f.Fuzz(func(t *testing.T, data []byte, holders string) {
		nodes, ok := readNodes(data)
		if !ok {
			return
		}
		users := held(holders)
		encoded, err := json.Marshal(corev1.NodeList{Items: derefNodes(nodes)})
		if err != nil {
			t.Fatalf("decoded nodes do not encode: %v", err)
		}
		again, ok := readNodes(encoded)
		if !ok {
			t.Fatalf("%s: encoded as %s, which does not decode", data, encoded)
		}
		reversed := slices.Clone(nodes)
		slices.Reverse(reversed)
		for own, l := range shapeLabels {
			parts := GroupShape(nodes, l.shape, users)
			checkPartitions(t, data, nodes, l, own, parts)
			if parts2 := GroupShape(again, l.shape, users); !reflect.DeepEqual(parts, parts2) {
				t.Fatalf("%s: %s partitions %+v, and %+v once encoded and decoded again", data, l.shape, parts, parts2)
			}
			if a, b := orderFree(parts), orderFree(GroupShape(reversed, l.shape, users)); !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: %s partitions %+v, and %+v of the nodes in reverse", data, l.shape, a, b)
			}
		}
	})
}

func derefNodes(nodes []*corev1.Node) []corev1.Node {
	out := make([]corev1.Node, len(nodes))
	for i, n := range nodes {
		out[i] = *n
	}
	return out
}

// checkPartitions checks the partitions of shape l (at index own) of nodes.
func checkPartitions(t *testing.T, data []byte, nodes []*corev1.Node, l shapeLabel, own int, parts []Partition) {
	t.Helper()
	withID := 0
	for _, n := range nodes {
		if l.idOf(n) != "" {
			withID++
		}
	}
	total := 0
	for i, p := range parts {
		total += p.Nodes
		switch {
		case i > 0 && parts[i-1].ID >= p.ID:
			t.Fatalf("%s: %s partitions not sorted by ID: %q then %q", data, l.shape, parts[i-1].ID, p.ID)
		case p.ID == "" || p.Shape != l.shape:
			t.Fatalf("%s: partition %+v of shape %s", data, p, l.shape)
		case p.Nodes != len(p.NodeNames) || !slices.IsSorted(p.NodeNames):
			t.Fatalf("%s: partition %s has %d nodes, names %q", data, p.ID, p.Nodes, p.NodeNames)
		case p.Ready < 0 || p.Ready > p.Nodes || p.Free < 0 || p.Free > p.Nodes || p.DRANodes < 0 || p.DRANodes > p.Nodes:
			t.Fatalf("%s: partition %s: %d nodes, %d ready, %d free, %d on DRA", data, p.ID, p.Nodes, p.Ready, p.Free, p.DRANodes)
		case (p.Slice != "") != (p.Free < p.Nodes):
			t.Fatalf("%s: partition %s held by %q with %d of %d nodes free", data, p.ID, p.Slice, p.Free, p.Nodes)
		case len(p.Ancestors) != own || len(p.AncestorFree) != own:
			t.Fatalf("%s: partition %s of shape %s has ancestors %q (free %v)", data, p.ID, l.shape, p.Ancestors, p.AncestorFree)
		case own == 0 && p.Parent != p.ID, own > 0 && p.Parent != p.Ancestors[0]:
			t.Fatalf("%s: partition %s has parent %q, ancestors %q", data, p.ID, p.Parent, p.Ancestors)
		}
	}
	if total != withID {
		t.Fatalf("%s: %d nodes with a %s ID, %d in its partitions", data, withID, l.shape, total)
	}
}

// orderFree is what of the partitions does not depend on the order the
// nodes came in: when its nodes disagree, a partition's pool, block and
// ancestors are its first node's, and of two states of one rank it keeps
// the first.
func orderFree(parts []Partition) []Partition {
	out := make([]Partition, len(parts))
	for i, p := range parts {
		out[i] = Partition{ID: p.ID, Shape: p.Shape, NodeNames: p.NodeNames, Nodes: p.Nodes, Ready: p.Ready, DRANodes: p.DRANodes,
			Free: p.Free, Slice: p.Slice}
	}
	return out
}
