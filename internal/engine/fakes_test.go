package engine

import (
	"context"
	"errors"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// The engine's own test helpers; the fakes it is built over are in
// internal/engine/enginetest.

// newTestEngine is the engine New builds, over the fakes, that polls
// operations every few milliseconds and does not wait for a selection to
// settle. Without kube, the cluster cannot be reached.
func newTestEngine(c *enginetest.Compute, g *enginetest.GKE, kube kubernetes.Interface) *Engine {
	return newEngineOver(c, g, func(context.Context) (Cluster, error) {
		if kube == nil {
			return nil, errors.New("this test has no Kubernetes cluster")
		}
		return kernel.NewCluster(kube, enginetest.NewDynamic()), nil
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
