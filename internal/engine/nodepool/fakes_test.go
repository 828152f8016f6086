package nodepool

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
)

// The node pools' test helpers; the fakes they are built over are in
// internal/engine/enginetest.

// testConfig is what newPoolsOver builds the pools over.
type testConfig struct {
	gke      kernel.GKE
	cluster  func(context.Context) (kernel.Cluster, error)
	readOpts clusterread.Options
	waiter   kernel.Waiter
}

// testOption changes what newPoolsOver builds the pools over.
type testOption func(*testConfig)

// withGKE builds the pools over g.
func withGKE(g kernel.GKE) testOption { return func(c *testConfig) { c.gke = g } }

// inventoryFails makes the cluster's clients, and so the inventory, fail
// to be made with err.
func inventoryFails(err error) testOption {
	return func(c *testConfig) {
		c.cluster = func(context.Context) (kernel.Cluster, error) { return nil, err }
	}
}

// refusingKubernetes makes the pools fail the test if they ask for a
// Kubernetes client.
func refusingKubernetes(t *testing.T, why string) testOption {
	return func(c *testConfig) {
		c.cluster = func(context.Context) (kernel.Cluster, error) {
			t.Errorf("the pools asked for a Kubernetes client: %s", why)
			return nil, errors.New("no Kubernetes client in this test")
		}
	}
}

// withInventory makes inv the reads' inventory, in place of one over the
// cluster's clients.
func withInventory(inv *clusterread.Inventory) testOption {
	return func(c *testConfig) { c.readOpts.Inventory = inv }
}

// firstListTimeout bounds the inventory's first lists.
func firstListTimeout(d time.Duration) testOption {
	return func(c *testConfig) { c.readOpts.FirstListTimeout = d }
}

// slowPolls bounds the polls of an operation by a millisecond and an
// hour: a create polls a millisecond after its nodes' cue, and hours
// apart without it.
func slowPolls(c *testConfig) { c.waiter = kernel.Waiter{Initial: time.Millisecond, Max: time.Hour} }

// newTestPools is the node pools that engine.New builds, over the fakes,
// polling operations every few milliseconds (unless slowPolls says otherwise).
// Without kube, the cluster cannot be reached.
func newTestPools(c *enginetest.Compute, g *enginetest.GKE, kube kubernetes.Interface, opts ...testOption) *Pools {
	return newPoolsOver(c, g, func(context.Context) (kernel.Cluster, error) {
		if kube == nil {
			return nil, errors.New("this test has no Kubernetes cluster")
		}
		return kernel.NewCluster(kube, enginetest.NewDynamic()), nil
	}, opts...)
}

// newPoolsOver is newTestPools over any Compute, GKE and cluster clients;
// a nil cluster is one that cannot be reached. The cluster reads,
// reservation reads and waiter are built as engine.New builds them, for
// an engine bound to no cluster.
func newPoolsOver(c kernel.Compute, g kernel.GKE, cluster func(context.Context) (kernel.Cluster, error), opts ...testOption) *Pools {
	cfg := testConfig{gke: g, cluster: cluster, waiter: kernel.Waiter{Initial: time.Millisecond, Max: 5 * time.Millisecond}}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.cluster == nil {
		cfg.cluster = func(context.Context) (kernel.Cluster, error) {
			return nil, errors.New("this test has no Kubernetes cluster")
		}
	}
	reads := clusterread.New(cfg.gke, clusterread.ClusterRef{Unnamed: errors.New("the test names no GKE cluster")}, cfg.cluster, cfg.readOpts)
	return New(cfg.gke, cfg.cluster, reads, reservation.New(c, reads), &cfg.waiter, kernel.CreateRecords{})
}

// newInventory is an inventory over kube and no Slices; it stops when the
// test ends.
func newInventory(t *testing.T, kube kubernetes.Interface) *clusterread.Inventory {
	t.Helper()
	inv := clusterread.NewInventory(kernel.NewCluster(kube, enginetest.NewDynamic()), clusterread.Options{})
	t.Cleanup(inv.Stop)
	return inv
}

// unlistedNodesAfter bounds the inventory's first list of the nodes, in
// tests whose API server refuses it.
const unlistedNodesAfter = 100 * time.Millisecond
