package day2

import (
	"context"
	"errors"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/nodepool"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
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
// cluster (nil: one that cannot be reached), the inventory inv (nil: one
// over the clients), and front, for the cluster named "" (none).
func newTestOps(compute kernel.Compute, cluster func(context.Context) (kernel.Cluster, error), inv *clusterread.Inventory, front Front) *Ops {
	if cluster == nil {
		cluster = noCluster
	}
	ref := clusterread.ClusterRef{Unnamed: errors.New("the provider names no GKE cluster")}
	reads := clusterread.New(enginetest.NewGKE(), ref, cluster, clusterread.Options{Inventory: inv})
	return New(compute, waitDone, reads, reservation.New(compute, reads), cluster, front)
}

// failingFront fails the test when day2 asks anything of the engine.
type failingFront struct{ t *testing.T }

func (f failingFront) DeleteSlice(context.Context, string) (string, error) {
	f.t.Error("DeleteSlice called")
	return "", errors.New("not expected")
}

func (f failingFront) DeleteNodePool(context.Context, string) error {
	f.t.Error("DeleteNodePool called")
	return errors.New("not expected")
}

func (f failingFront) ReadNodePool(context.Context, string) (*nodepool.Pool, error) {
	f.t.Error("ReadNodePool called")
	return nil, errors.New("not expected")
}

func (f failingFront) AccessOf(context.Context, string, []string) clusterread.DeviceAccess {
	f.t.Error("AccessOf called")
	return ""
}
