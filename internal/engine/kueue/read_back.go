package kueue

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// What an import reads back of the objects ApplyKueueSlicing made
// (ReadKueueSlicing fetches them): each function decodes one object as
// the cluster answered it, whatever it holds.

// queueReadBack is the gke_kueue_slicing name as its ClusterQueue cq
// records it: its node pools and its quota (the overflow, the sub-slicing
// and the namespaces are the other objects'), or an error saying what to
// do when the provider did not make cq or cq does not record its pools.
func queueReadBack(name string, cq *unstructured.Unstructured) (KueueSlicing, error) {
	k := KueueSlicing{Name: name, SubSlicing: true}
	if cq.GetLabels()[labelManagedBy] != managedBy {
		return k, fmt.Errorf("ClusterQueue %s was not made by gke_kueue_slicing (it lacks the label %s=%s), so it cannot be imported as one; "+
			"declare a gke_kueue_slicing with another name, or delete that ClusterQueue first", name, labelManagedBy, managedBy)
	}
	pools := cq.GetAnnotations()[AnnotationKueueNodePools]
	if pools == "" {
		return k, fmt.Errorf("ClusterQueue %s does not record its node pools (annotation %s; objects applied by provider versions before it "+
			"lack it), so the import cannot fill node_pools: instead of importing, declare gke_kueue_slicing %q with the same node_pools "+
			"and namespaces and apply; server-side apply takes the objects over without recreating them", name, AnnotationKueueNodePools, name)
	}
	k.NodePools = strings.Split(pools, ",")
	k.TPUQuota = flavorQuota(cq, name)
	return k, nil
}

// subSlicingOf says whether the Topology topo has the sub-slicing levels:
// any number of levels but the super-slices' alone.
func subSlicingOf(topo *unstructured.Unstructured) bool {
	levels, _, _ := unstructured.NestedSlice(topo.Object, "spec", "levels")
	return len(levels) != len(KueueSlicing{}.TopologyLevels())
}

// namespacesOf are the namespaces, sorted, of the LocalQueues named name
// that feed the ClusterQueue name.
func namespacesOf(name string, queues []unstructured.Unstructured) []string {
	var out []string
	for _, q := range queues {
		if target, _, _ := unstructured.NestedString(q.Object, "spec", "clusterQueue"); q.GetName() == name && target == name {
			out = append(out, q.GetNamespace())
		}
	}
	sort.Strings(out)
	return out
}
