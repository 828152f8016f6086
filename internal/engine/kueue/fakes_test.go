package kueue

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

// The Kueue tests' helpers: a Kueue built as engine.New builds it (New
// over clusterread.New), over the fakes of internal/engine/enginetest.

// testConfig is what a test Kueue is built over.
type testConfig struct {
	ref     clusterread.ClusterRef
	cluster func(context.Context) (kernel.Cluster, error)
	inv     *clusterread.Inventory
}

// testOption changes what a test Kueue is built over.
type testOption func(*testConfig)

// boundTo binds the Kueue's reads to the GKE cluster named name.
func boundTo(name string) testOption {
	return func(c *testConfig) { c.ref = clusterread.ClusterRef{Name: name} }
}

// unnamedBecause binds the Kueue's reads to no cluster, for the reason why.
func unnamedBecause(why error) testOption {
	return func(c *testConfig) { c.ref = clusterread.ClusterRef{Unnamed: why} }
}

// withClients builds the Kueue over the cluster's clients that cluster
// returns.
func withClients(cluster func(context.Context) (kernel.Cluster, error)) testOption {
	return func(c *testConfig) { c.cluster = cluster }
}

// wrapClients builds the Kueue over the cluster's clients as w wraps them.
func wrapClients(w func(kernel.Cluster) kernel.Cluster) testOption {
	return func(c *testConfig) {
		inner := c.cluster
		c.cluster = func(ctx context.Context) (kernel.Cluster, error) {
			cl, err := inner(ctx)
			return w(cl), err
		}
	}
}

// inventoryFails makes the cluster's clients, and so the inventory, fail
// to be made with err.
func inventoryFails(err error) testOption {
	return withClients(func(context.Context) (kernel.Cluster, error) { return nil, err })
}

// withInventory makes inv the reads' inventory, in place of one over the
// cluster's clients.
func withInventory(inv *clusterread.Inventory) testOption {
	return func(c *testConfig) { c.inv = inv }
}

// newTestKueue is the Kueue over g and the cluster of kube (nil: a cluster
// that cannot be reached).
func newTestKueue(g *enginetest.GKE, kube kubernetes.Interface, opts ...testOption) *Kueue {
	return newKueueOver(g, func(context.Context) (kernel.Cluster, error) {
		if kube == nil {
			return nil, errors.New("this test has no Kubernetes cluster")
		}
		return kernel.NewCluster(kube, enginetest.NewDynamic()), nil
	}, opts...)
}

// newKueueOver is newTestKueue over any GKE and cluster clients; a nil
// cluster is one that cannot be reached. Like engine.New, a cluster not
// named gets a reason.
func newKueueOver(g kernel.GKE, cluster func(context.Context) (kernel.Cluster, error), opts ...testOption) *Kueue {
	cfg := testConfig{cluster: cluster}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.cluster == nil {
		cfg.cluster = func(context.Context) (kernel.Cluster, error) {
			return nil, errors.New("this test has no Kubernetes cluster")
		}
	}
	if cfg.ref.Name == "" && cfg.ref.Unnamed == nil {
		cfg.ref.Unnamed = errors.New("the provider names no GKE cluster")
	}
	reads := clusterread.New(g, cfg.ref, cfg.cluster, clusterread.Options{Inventory: cfg.inv})
	return New(reads, cfg.cluster, kernel.Waiter{Initial: time.Millisecond, Max: 5 * time.Millisecond})
}

// newInventory is an inventory over kube and no Slices; it stops when the
// test ends.
func newInventory(t *testing.T, kube kubernetes.Interface) *clusterread.Inventory {
	t.Helper()
	inv := clusterread.NewInventory(kernel.NewCluster(kube, enginetest.NewDynamic()), clusterread.Options{})
	t.Cleanup(inv.Stop)
	return inv
}
