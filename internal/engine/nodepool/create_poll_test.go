package nodepool

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// GKE registers a pool's nodes before it ends the create operation: when
// all of them are Ready the engine polls soon (here 1 ms) instead of
// waiting out its slow polls (here hours), and not before.
func TestCreateNodePoolPollsWhenNodesRegister(t *testing.T) {
	t.Parallel()
	kube, watching := enginetest.NewKube()
	gke := enginetest.NewGKE()
	gke.CreateOp = &container.Operation{Name: "op-create", Status: "RUNNING", OperationType: "CREATE_NODE_POOL"}
	gke.Ops = []*container.Operation{{Name: "op-create", Status: "DONE", OperationType: "CREATE_NODE_POOL"}}
	e := newTestPools(enginetest.NewCompute().WithFixtureBlock(), gke, kube, slowPolls)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	registered := make(chan error, 1)
	go func() {
		select {
		case <-watching:
		case <-ctx.Done():
			registered <- ctx.Err()
			return
		}
		for i := range 2 {
			n := enginetest.Node(fmt.Sprintf("slice-a-%d", i), testPoolName, enginetest.OnSubBlock("phys-a"), enginetest.Partition("part-1", wellknown.PartitionHealthy))
			if _, err := kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
				registered <- err
				return
			}
		}
		// NotReady nodes are not the cue. Nothing can be awaited for
		// "no poll happened": give the engine a window in which a wrong
		// cue would show (the slow polls here are hours apart).
		time.Sleep(200 * time.Millisecond)
		if polls := len(gke.OperationNames()); polls != 0 {
			registered <- fmt.Errorf("polled %d times before the nodes were Ready", polls)
			return
		}
		for i := range 2 {
			n, err := kube.CoreV1().Nodes().Get(ctx, fmt.Sprintf("slice-a-%d", i), metav1.GetOptions{})
			if err == nil {
				enginetest.Ready(n)
				_, err = kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
			}
			if err != nil {
				registered <- err
				return
			}
		}
		registered <- nil
	}()

	pool, err := e.Create(ctx, poolSpec(), func(string) {})
	if err != nil {
		t.Fatalf("CreateNodePool: %v", err)
	}
	if err := <-registered; err != nil {
		t.Fatal(err)
	}
	if polls := len(gke.OperationNames()); polls != 1 {
		t.Errorf("polled the operation %d times, want 1 (when the nodes were Ready)", polls)
	}
	if pool.PartitionID != "part-1" || pool.ReadyNodes != 2 {
		t.Errorf("pool partition %q with %d Ready nodes, want part-1 with 2", pool.PartitionID, pool.ReadyNodes)
	}
}

// A create whose nodes never register (here: the operation fails before
// they come) is still polled, slowly: the failure is reported.
func TestCreateNodePoolSlowPollsCatchAFailure(t *testing.T) {
	t.Parallel()
	kube, _ := enginetest.NewKube()
	gke := enginetest.NewGKE()
	gke.CreateOp = &container.Operation{Name: "op-create", Status: "RUNNING", OperationType: "CREATE_NODE_POOL"}
	gke.Ops = []*container.Operation{
		{Name: "op-create", Status: "RUNNING", OperationType: "CREATE_NODE_POOL"},
		{Name: "op-create", Status: "DONE", OperationType: "CREATE_NODE_POOL", Error: &container.Status{Code: 8, Message: "stockout"}},
	}
	e := newTestPools(enginetest.NewCompute().WithFixtureBlock(), gke, kube)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	_, err := e.Create(ctx, poolSpec(), func(string) {})
	if err == nil || !strings.Contains(err.Error(), "stockout") {
		t.Fatalf("CreateNodePool = %v, want the operation's failure", err)
	}
	if polls := len(gke.OperationNames()); polls != 2 {
		t.Errorf("polled %d times, want 2", polls)
	}
}
