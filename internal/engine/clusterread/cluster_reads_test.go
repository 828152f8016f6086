package clusterread

import (
	"context"
	"reflect"
	"testing"

	k8stesting "k8s.io/client-go/testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func TestLabelledNodesSelector(t *testing.T) {
	t.Parallel()
	kube, _ := enginetest.NewKube(
		enginetest.Node("b-1", "pool-b", enginetest.OnSubBlock("phys-b")),
		enginetest.Node("b-2", "pool-b"),
		enginetest.Node("c-1", "pool-c", enginetest.OnSubBlock("phys-c")),
	)
	r := New(enginetest.NewGKE(), ClusterRef{}, func(context.Context) (kernel.Cluster, error) {
		return kernel.NewCluster(kube, enginetest.NewDynamic()), nil
	}, Options{})
	t.Cleanup(r.Stop)
	nodes, err := r.Nodes(t.Context(), map[string]string{wellknown.LabelNodePool: "pool-b", wellknown.LabelTopologySubBlock: ""})
	if err != nil {
		t.Fatalf("Nodes: %v", err)
	}
	if len(nodes) != 1 || nodes[0].Name != "b-1" {
		var names []string
		for _, n := range nodes {
			names = append(names, n.Name)
		}
		t.Errorf("nodes of pool-b with a sub-block = %v, want [b-1]", names)
	}
	// The nodes come from the inventory: its one list, of every node.
	var selectors []string
	for _, a := range kube.Actions() {
		if l, ok := a.(k8stesting.ListActionImpl); ok {
			selectors = append(selectors, l.ListOptions.LabelSelector)
		}
	}
	if want := []string{""}; !reflect.DeepEqual(selectors, want) {
		t.Errorf("list selectors = %q, want %q (the inventory's list)", selectors, want)
	}
}
