package tpuslice

import (
	"context"
	"errors"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// The slices' test helpers; the fakes they are built over are in
// internal/engine/enginetest.

// The names of kernel and clusterread the tests use unqualified.
type (
	Cluster    = kernel.Cluster
	ClusterRef = clusterread.ClusterRef
)

// SliceGVR is the Slice custom resource.
var SliceGVR = kernel.SliceGVR

// SliceActivating is a Slice's state while it forms.
const SliceActivating = clusterread.SliceActivating

// testConfig is what a test's Slices are built over.
type testConfig struct {
	gke     kernel.GKE
	ref     ClusterRef
	cluster func(context.Context) (Cluster, error)
	reads   clusterread.Options
	slices  Options
}

// testOption changes what a test's Slices are built over.
type testOption func(*testConfig)

// boundTo binds the slices to the GKE cluster named name.
func boundTo(name string) testOption {
	return func(c *testConfig) { c.ref = ClusterRef{Name: name} }
}

// withGKE builds the slices over g.
func withGKE(g kernel.GKE) testOption { return func(c *testConfig) { c.gke = g } }

// withClients builds the slices over the cluster's clients that cluster
// returns.
func withClients(cluster func(context.Context) (Cluster, error)) testOption {
	return func(c *testConfig) { c.cluster = cluster }
}

// inventoryFails makes the cluster's clients, and so the inventory, fail
// to be made with err.
func inventoryFails(err error) testOption {
	return withClients(func(context.Context) (Cluster, error) { return nil, err })
}

// withInventory makes inv the reads' inventory, in place of one over the
// cluster's clients (nil: one over them).
func withInventory(inv *clusterread.Inventory) testOption {
	return func(c *testConfig) { c.reads.Inventory = inv }
}

// settle bounds how long a create waits for a selection to settle.
func settle(d time.Duration) testOption {
	return func(c *testConfig) { c.slices.SelectionSettle = d }
}

// onePoolList makes a waiting selection list the node pools again only
// after an hour: one list serves its whole wait.
func onePoolList(c *testConfig) { c.slices.PoolRelist = time.Hour }

// newSlicesOver is the Slices New builds, over the reads clusterread.New
// builds over g and the cluster's clients (nil: a cluster that cannot be
// reached), that waits a millisecond for a selection to settle.
func newSlicesOver(g kernel.GKE, cluster func(context.Context) (Cluster, error), opts ...testOption) *Slices {
	cfg := testConfig{gke: g, cluster: cluster, slices: Options{SelectionSettle: time.Millisecond}}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.cluster == nil {
		cfg.cluster = func(context.Context) (Cluster, error) { return nil, errors.New("this test has no Kubernetes cluster") }
	}
	if cfg.ref.Name == "" && cfg.ref.Unnamed == nil {
		cfg.ref.Unnamed = errors.New("the provider names no GKE cluster")
	}
	return New(cfg.cluster, clusterread.New(cfg.gke, cfg.ref, cfg.cluster, cfg.reads), nil, nil, cfg.slices)
}
