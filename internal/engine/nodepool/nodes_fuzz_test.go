package nodepool

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// poolNodeObjects are the objects of a JSON NodeList as a pool's watch
// hands them on (and one that is not a node), or nil.
func poolNodeObjects(data []byte) []any {
	var list corev1.NodeList
	if err := json.Unmarshal(data, &list); err != nil {
		return nil
	}
	objs := []any{"not a node"}
	for i := range list.Items {
		objs = append(objs, &list.Items[i])
	}
	return objs
}

// Any JSON as a node pool's nodes: reading its partition from their
// labels never panics; it counts the nodes, the Ready ones and those
// labelled with a partition; its state is the worst a labelled node
// reports; a wait is done only when every node is labelled and one is
// Ready; and it reads the same of the nodes encoded and decoded again.
func FuzzViewNodes(f *testing.F) {
	node := func(name, id, state, ready string) map[string]any {
		return map[string]any{"metadata": map[string]any{"name": name, "labels": map[string]any{
			wellknown.LabelNodePool: "np-1", wellknown.PartitionIDLabels[0]: id, wellknown.PartitionStateLabels[0]: state}},
			"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": ready}}}}
	}
	seed := func(nodes ...map[string]any) []byte {
		b, _ := json.Marshal(map[string]any{"kind": "NodeList", "apiVersion": "v1", "items": nodes})
		return b
	}
	f.Add(seed(node("h0", "p-1", wellknown.PartitionHealthy, "True"), node("h1", "p-1", wellknown.PartitionDegraded, "True")))
	f.Add(seed(node("h0", "p-1", "", "False"), node("h1", "", wellknown.PartitionHealthy, "Unknown"), node("h2", "p-1", "BROKEN", "True")))
	f.Add([]byte(`{"items":[{"metadata":{"name":"h","labels":{"cloud.google.com/gke-tpu-partition-id-4x4x4":"p"}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs := poolNodeObjects(data)
		if objs == nil {
			return
		}
		v := viewNodes(objs)
		nodes, ready, labelled, worst := 0, 0, 0, ""
		for _, o := range objs[1:] {
			n, _ := o.(*corev1.Node)
			nodes++
			if clusterread.NodeReady(n) {
				ready++
			}
			if s := clusterread.PartitionState(n); clusterread.PartitionID(n) != "" && s != "" {
				labelled++
				if worst == "" || clusterread.Worse(s, worst) {
					worst = s
				}
			}
		}
		if v.nodes != nodes || v.ready != ready || v.labelled != labelled || len(v.names) != nodes || !slices.IsSorted(v.names) ||
			(v.id != "") != (labelled > 0) || clusterread.Worse(worst, v.state) || clusterread.Worse(v.state, worst) {
			t.Fatalf("%s: read %+v; %d nodes, %d Ready, %d labelled, worst state %q", data, v, nodes, ready, labelled, worst)
		}
		for _, w := range []string{WaitLabelled, WaitHealthy, WaitUsable} {
			if v.done(w) && (labelled != nodes || ready == 0 || nodes == 0) {
				t.Fatalf("%s: %+v done waiting for %s", data, v, w)
			}
		}
		list := corev1.NodeList{}
		for _, o := range objs[1:] {
			n, _ := o.(*corev1.Node)
			list.Items = append(list.Items, *n)
		}
		encoded, err := json.Marshal(list)
		if err != nil {
			t.Fatalf("decoded nodes do not encode: %v", err)
		}
		if v2 := viewNodes(poolNodeObjects(encoded)); !reflect.DeepEqual(v, v2) {
			t.Fatalf("%s: read %+v, and %+v once encoded and decoded again", data, v, v2)
		}
	})
}
