package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// The engine's own test helpers; the fakes it is built over are in
// internal/engine/enginetest.

// testConfig is what New builds a test engine over.
type testConfig struct {
	gke     kernel.GKE
	ref     clusterread.ClusterRef
	cluster func(context.Context) (kernel.Cluster, error)
	opts    Options
	inv     *clusterread.Inventory
}

// testOption changes what New builds a test engine over.
type testOption func(*testConfig)

// boundTo binds the engine to the GKE cluster named name.
//
//nolint:unparam // the tests of other clusters moved with the slices (tpuslice); which cluster stays the caller's choice
func boundTo(name string) testOption {
	return func(c *testConfig) { c.ref = clusterread.ClusterRef{Name: name} }
}

// withClients builds the engine over the cluster's clients that cluster
// returns.
func withClients(cluster func(context.Context) (kernel.Cluster, error)) testOption {
	return func(c *testConfig) { c.cluster = cluster }
}

// inventoryFails makes the cluster's clients, and so the inventory, fail
// to be made with err.
func inventoryFails(err error) testOption {
	return withClients(func(context.Context) (kernel.Cluster, error) { return nil, err })
}

// refusingKubernetes makes the engine fail the test if it asks for a
// Kubernetes client.
func refusingKubernetes(t *testing.T, why string) testOption {
	return withClients(func(context.Context) (kernel.Cluster, error) {
		t.Errorf("the engine asked for a Kubernetes client: %s", why)
		return nil, errors.New("no Kubernetes client in this test")
	})
}

// withInventory makes inv the engine's inventory, in place of one over
// the cluster's clients (nil: one over them).
func withInventory(inv *clusterread.Inventory) testOption {
	return func(c *testConfig) { c.inv = inv }
}

// unlistedNodesFail bounds the inventory's first lists by
// unlistedNodesAfter, in tests whose API server refuses them.
func unlistedNodesFail(c *testConfig) { c.opts.FirstListTimeout = unlistedNodesAfter }

// testOptions are the budgets of a test engine: it polls operations every
// few milliseconds and waits a millisecond for a selection to settle.
var testOptions = Options{PollInitial: time.Millisecond, PollMax: 5 * time.Millisecond, SelectionSettle: time.Millisecond}

// newTestEngine is the engine New builds, over the fakes, with the
// budgets testOptions. Without kube, the cluster cannot be reached.
func newTestEngine(c *enginetest.Compute, g *enginetest.GKE, kube kubernetes.Interface, opts ...testOption) *Engine {
	return newEngineOver(c, g, func(context.Context) (kernel.Cluster, error) {
		if kube == nil {
			return nil, errors.New("this test has no Kubernetes cluster")
		}
		return kernel.NewCluster(kube, enginetest.NewDynamic()), nil
	}, opts...)
}

// newEngineOver is newTestEngine over any GKE and cluster clients; a nil
// cluster is one that cannot be reached.
func newEngineOver(c kernel.Compute, g kernel.GKE, cluster func(context.Context) (kernel.Cluster, error), opts ...testOption) *Engine {
	cfg := testConfig{gke: g, cluster: cluster, opts: testOptions}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.cluster == nil {
		cfg.cluster = func(context.Context) (kernel.Cluster, error) {
			return nil, errors.New("this test has no Kubernetes cluster")
		}
	}
	return newEngine(c, cfg.gke, cfg.ref, cfg.cluster, cfg.opts, cfg.inv)
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
