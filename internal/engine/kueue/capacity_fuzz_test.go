package kueue

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// poolFactsOf are the facts of pools np-1 and np-2 (GKE lists both, 16
// nodes each) with the nodes of a JSON NodeList, by their pool label, as
// the checks before a plan read them; nil when data does not decode.
func poolFactsOf(data []byte) []kueuePoolFacts {
	var list corev1.NodeList
	if err := json.Unmarshal(data, &list); err != nil {
		return nil
	}
	facts := []kueuePoolFacts{{name: "np-1", listed: true, gkeKnown: true, nodeCount: 16, reservationBlock: "res/block-a"},
		{name: "np-2", listed: true, gkeKnown: true, nodeCount: 16, reservationBlock: "res/block-a"},
		{name: "np-3", gkeKnown: true, provisioning: true, reservationBlock: "res/block-a"}}
	for i := range list.Items {
		n := &list.Items[i]
		for j := range facts {
			if facts[j].name == n.Labels[wellknown.LabelNodePool] {
				facts[j].nodes = append(facts[j].nodes, n)
			}
		}
	}
	return facts
}

func nodeJSON(pool, block, partition string, extra map[string]string) map[string]any {
	labels := map[string]any{wellknown.LabelNodePool: pool, wellknown.LabelAccelerator: "tpu7x", wellknown.LabelTopologyBlock: block,
		wellknown.LabelPartitionID: partition}
	for k, v := range extra {
		labels[k] = v
	}
	return map[string]any{"metadata": map[string]any{"name": pool + "-" + partition, "labels": labels},
		"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}}
}

// Any JSON as the nodes of a gke_kueue_slicing's pools: the checks of
// their labels (the flavor's accelerator, the Topology's levels) and the
// capacity they offer never panic; a problem counts only the pool's nodes;
// the block chosen holds the most partitions, of pools that are there;
// and both read the same of the nodes encoded and decoded again.
func FuzzPoolNodes(f *testing.F) {
	seed := func(nodes ...map[string]any) []byte {
		b, _ := json.Marshal(map[string]any{"kind": "NodeList", "apiVersion": "v1", "items": nodes})
		return b
	}
	f.Add(seed(nodeJSON("np-1", "b1", "p-1", nil), nodeJSON("np-2", "b1", "p-2", nil), nodeJSON("np-2", "b2", "p-3", nil)))
	f.Add(seed(nodeJSON("np-1", "", "p-1", map[string]string{wellknown.LabelAccelerator: "tpu-v6e-slice"}), nodeJSON("np-2", "b1", "", nil)))
	f.Add([]byte(`{"items":[{"metadata":{"labels":{"cloud.google.com/gke-nodepool":"np-1"}}},{}]}`))
	levels := seedSlicing.TopologyLevels()
	f.Fuzz(func(t *testing.T, data []byte) {
		facts := poolFactsOf(data)
		if facts == nil {
			return
		}
		problems := poolProblems(facts, levels, false)
		capacity := capacityOf(facts, kueueCheck{pools: []string{"np-1", "np-2", "np-3"}})
		if problems != nil {
			for _, p := range problems.Problems {
				i := slices.IndexFunc(facts, func(f kueuePoolFacts) bool { return f.name == p.Pool })
				if i < 0 || p.Nodes != len(facts[i].nodes) || p.NotTPU7x > p.Nodes || len(p.Accelerators) > p.NotTPU7x || !slices.IsSorted(p.Accelerators) {
					t.Fatalf("%s: problem %+v", data, p)
				}
				for l, n := range p.Lacking {
					if n <= 0 || n > p.Nodes || !slices.Contains(levels, l) {
						t.Fatalf("%s: problem %+v lacks %s on %d nodes", data, p, l, n)
					}
				}
				_ = problems.Error()
			}
		}
		partitions := map[string]map[string]bool{}
		for _, f := range facts {
			for _, n := range f.nodes {
				if b, id := n.Labels[wellknown.LabelTopologyBlock], clusterread.PartitionID(n); b != "" && id != "" {
					if partitions[b] == nil {
						partitions[b] = map[string]bool{}
					}
					partitions[b][id] = true
				}
			}
		}
		most := 0
		for _, ids := range partitions {
			most = max(most, len(ids))
		}
		// (np-3, provisioning, adds a partition of its own to the block of
		// its reservation's, when the other pools' nodes tell which.)
		if capacity.partitions < most || capacity.partitions > most+1 || (capacity.partitions > 0) != (len(capacity.blockPools) > 0) {
			t.Fatalf("%s: capacity %+v, the most partitions of a block %d", data, capacity, most)
		}
		encoded, err := json.Marshal(map[string]any{"items": nodesOf(facts)})
		if err != nil {
			t.Fatalf("decoded nodes do not encode: %v", err)
		}
		facts2 := poolFactsOf(encoded)
		if !reflect.DeepEqual(problems, poolProblems(facts2, levels, false)) ||
			!reflect.DeepEqual(capacity, capacityOf(facts2, kueueCheck{pools: []string{"np-1", "np-2", "np-3"}})) {
			t.Fatalf("%s: the nodes encoded and decoded again read otherwise", data)
		}
	})
}

func nodesOf(facts []kueuePoolFacts) []corev1.Node {
	var out []corev1.Node
	for _, f := range facts {
		for _, n := range f.nodes {
			out = append(out, *n)
		}
	}
	return out
}
