package tpuslice

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflogtest"
	container "google.golang.org/api/container/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

const failFastCluster = "projects/p/locations/l/clusters/c"

// failFastPool is a GKE node pool of the cluster with status and nodes,
// on a reservation sub-block of block-a.
func failFastPool(name, status string, nodes int64) *container.NodePool {
	return &container.NodePool{
		Name: name, Status: status, InitialNodeCount: nodes,
		Config: &container.NodeConfig{ReservationAffinity: &container.ReservationAffinity{
			Values: []string{"projects/p/reservations/r/reservationBlocks/block-a/reservationSubBlocks/" + name},
		}},
	}
}

// failFastNode is a Ready node of pool in partition id, in block b1.
func failFastNode(name, pool, id, state string) *corev1.Node {
	return enginetest.Node(name, pool, enginetest.Partition(id, state), enginetest.Labelled(wellknown.LabelTopologyBlock, "b1"), enginetest.Ready)
}

// selectLogged runs CreateSlice for a 4x4x4 slice with sel over the
// nodes the inventory holds (and the API server too, with extra besides),
// Slices and GKE pools, and returns how many times the selection waited
// for partitions (the engine's own log lines) and its error.
func selectLogged(t *testing.T, sel PartitionSelector, nodes, extra []*corev1.Node, slices []*unstructured.Unstructured, pools ...*container.NodePool) (int, error) {
	t.Helper()
	g := enginetest.NewGKE()
	for _, p := range pools {
		g.Pools[failFastCluster+"/nodePools/"+p.Name] = p
	}
	kube, _ := enginetest.NewKube(append(append([]*corev1.Node{}, nodes...), extra...)...)
	dyn := enginetest.NewDynamic()
	e := planEngine(clusterread.Fixed(nodes, slices), withGKE(g), boundTo(failFastCluster), settle(10*time.Millisecond),
		withClients(func(context.Context) (Cluster, error) { return kernel.NewCluster(kube, dyn), nil }))
	var logs bytes.Buffer
	ctx := tflogtest.RootLogger(context.Background(), &logs)
	_, err := e.CreateSlice(ctx, SliceRequest{Name: "mine", Type: "tpu7x", Topology: "4x4x4", Selector: &sel}, func([]string) {
		t.Error("a Slice was created for a selection that cannot be met")
	})
	if !errors.Is(err, ErrSelection) {
		t.Fatalf("CreateSlice: %v, want an ErrSelection", err)
	}
	lines, derr := tflogtest.MultilineJSONDecode(&logs)
	if derr != nil {
		t.Fatal(derr)
	}
	waits := 0
	for _, l := range lines {
		if msg, _ := l["@message"].(string); strings.HasPrefix(msg, "Selection not met yet") {
			waits++
		}
	}
	return waits, err
}

const finalClause = "so waiting would not change this"

// A selection whose shortage has a cause already known (partitions held
// by another slice, an unhealthy partition) fails on its first try, when
// every pool of the selection is RUNNING with its nodes in the inventory.
func TestSelectionFailsAtOnceWhenNothingIsPending(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		sel    PartitionSelector
		nodes  []*corev1.Node
		slices []*unstructured.Unstructured
		pools  []*container.NodePool
		reason string
	}{
		"held by another slice": {
			sel:    PartitionSelector{NodePools: []string{"np-1"}},
			nodes:  []*corev1.Node{failFastNode("n1", "np-1", "p1", wellknown.PartitionHealthy)},
			slices: []*unstructured.Unstructured{enginetest.Slice("other", "p1")},
			pools:  []*container.NodePool{failFastPool("np-1", "RUNNING", 1)},
			reason: "1 used by slice other",
		},
		"unhealthy, whole cluster": {
			nodes:  []*corev1.Node{failFastNode("n1", "np-1", "p1", wellknown.PartitionUnhealthy)},
			pools:  []*container.NodePool{failFastPool("np-1", "RUNNING", 1), {Name: "default-pool", Status: "PROVISIONING"}},
			reason: "1 " + wellknown.PartitionUnhealthy,
		},
		"a host without a node, the pool RUNNING": {
			sel:    PartitionSelector{NodePools: []string{"np-1"}},
			nodes:  []*corev1.Node{failFastNode("n1", "np-1", "p1", wellknown.PartitionIncomplete)},
			pools:  []*container.NodePool{failFastPool("np-1", "RUNNING", 2)},
			reason: "1 " + wellknown.PartitionIncomplete,
		},
		"unhealthy in the block, another block's pool failed": {
			sel:    PartitionSelector{Block: "block-a"},
			nodes:  []*corev1.Node{failFastNode("n1", "np-1", "p1", wellknown.PartitionUnhealthy)},
			pools:  []*container.NodePool{failFastPool("np-1", "RUNNING", 1), failFastPool("np-err", "ERROR", 1)},
			reason: "1 " + wellknown.PartitionUnhealthy,
		},
	} {
		waits, err := selectLogged(t, tc.sel, tc.nodes, nil, tc.slices, tc.pools...)
		testsupport.WantContains(t, err, tc.reason, finalClause)
		if waits != 0 {
			t.Errorf("%s: the selection waited %d times for partitions, want 0: nothing pending could change it", name, waits)
		}
	}
}

// While a pool of the selection is pending (GKE is still creating it, it
// is not listed yet, or the inventory lacks nodes the API server has), the
// selection keeps trying for the settle time and does not call the
// shortage final.
func TestSelectionWaitsWhileAPoolIsPending(t *testing.T) {
	t.Parallel()
	held := []*unstructured.Unstructured{enginetest.Slice("other", "p1")}
	nodes := []*corev1.Node{failFastNode("n1", "np-1", "p1", wellknown.PartitionHealthy)}
	for name, tc := range map[string]struct {
		sel   PartitionSelector
		extra []*corev1.Node
		pools []*container.NodePool
	}{
		"a named pool PROVISIONING": {
			sel:   PartitionSelector{NodePools: []string{"np-1", "np-2"}},
			pools: []*container.NodePool{failFastPool("np-1", "RUNNING", 1), failFastPool("np-2", "PROVISIONING", 1)},
		},
		"a named pool not listed yet": {
			sel:   PartitionSelector{NodePools: []string{"np-1", "np-2"}},
			pools: []*container.NodePool{failFastPool("np-1", "RUNNING", 1)},
		},
		"a pool's nodes not all in the inventory": {
			sel:   PartitionSelector{NodePools: []string{"np-1"}},
			extra: []*corev1.Node{failFastNode("n2", "np-1", "p1", wellknown.PartitionHealthy)},
			pools: []*container.NodePool{failFastPool("np-1", "RUNNING", 2)},
		},
		"a node's labels not in the inventory yet": {
			sel:   PartitionSelector{NodePools: []string{"np-2"}},
			extra: []*corev1.Node{failFastNode("n2", "np-2", "p2", wellknown.PartitionHealthy)},
			pools: []*container.NodePool{failFastPool("np-1", "RUNNING", 1), failFastPool("np-2", "RUNNING", 1)},
		},
		"a pool of the block RECONCILING": {
			sel:   PartitionSelector{Block: "block-a"},
			pools: []*container.NodePool{failFastPool("np-1", "RUNNING", 1), failFastPool("np-2", "RECONCILING", 1)},
		},
	} {
		waits, err := selectLogged(t, tc.sel, nodes, tc.extra, held, tc.pools...)
		if strings.Contains(err.Error(), finalClause) {
			t.Errorf("%s: the shortage is called final while a pool is pending: %v", name, err)
		}
		if waits == 0 {
			t.Errorf("%s: the selection did not wait for the pending pool", name)
		}
	}
}
