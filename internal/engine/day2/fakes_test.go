package day2

import (
	"context"
	"errors"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
)

// The day-2 tests' helpers: Ops built as engine.New builds them (New over
// clusterread.New and reservation.New), over the fakes of
// internal/engine/enginetest.

// waitDone waits for operations that are done when they are answered.
func waitDone(_ context.Context, op kernel.Operation, err error) error {
	if err != nil {
		return err
	}
	if s := op.State(); s.Failed {
		return &kernel.OperationError{Name: op.Name(), Message: s.Message}
	}
	return nil
}

// noCluster is a cluster that cannot be reached.
func noCluster(context.Context) (kernel.Cluster, error) {
	return nil, errors.New("this test has no Kubernetes cluster")
}

// newTestOps is the Ops over compute, the fake GKE, the cluster's clients
// cluster (nil: one that cannot be reached) and the inventory inv (nil: one
// over the clients), for the cluster named "" (none), whose drains fail the
// test.
func newTestOps(t *testing.T, compute kernel.Compute, cluster func(context.Context) (kernel.Cluster, error), inv *clusterread.Inventory) *Ops {
	if cluster == nil {
		cluster = noCluster
	}
	ref := clusterread.ClusterRef{Unnamed: errors.New("the provider names no GKE cluster")}
	reads := clusterread.New(enginetest.NewGKE(), ref, cluster, clusterread.Options{Inventory: inv})
	return New(compute, waitDone, reads, reservation.New(compute, reads), cluster, noDrain{t}, noDrain{t})
}

// noDrain fails the test when day2 deletes a slice or a node pool.
type noDrain struct{ t *testing.T }

func (f noDrain) DeleteSlice(context.Context, string, bool) (tpuslice.SliceDeleted, error) {
	f.t.Error("DeleteSlice called")
	return tpuslice.SliceDeleted{}, errors.New("not expected")
}

func (f noDrain) Delete(context.Context, string) error {
	f.t.Error("DeleteNodePool called")
	return errors.New("not expected")
}
