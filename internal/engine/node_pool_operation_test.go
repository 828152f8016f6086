package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func TestPollBoundsDefaults(t *testing.T) {
	t.Parallel()
	initial, ceiling := (&Engine{}).pollBounds()
	if initial != 250*time.Millisecond || ceiling != 5*time.Second {
		t.Errorf("default poll bounds = %s, %s; want 250ms, 5s", initial, ceiling)
	}
	initial, ceiling = (&Engine{pollInitial: time.Second, pollMax: time.Minute}).pollBounds()
	if initial != time.Second || ceiling != time.Minute {
		t.Errorf("poll bounds = %s, %s; want the engine's 1s, 1m", initial, ceiling)
	}
}

// GKE registers a pool's nodes before it ends the create operation: when
// all of them are Ready the engine polls at once instead of waiting out
// its backoff (here an hour), and not before.
func TestCreateNodePoolPollsWhenNodesRegister(t *testing.T) {
	t.Parallel()
	kube, watching := newKube()
	gke := newFakeGKE()
	gke.createOp = &container.Operation{Name: "op-create", Status: "RUNNING", OperationType: "CREATE_NODE_POOL"}
	gke.ops = []*container.Operation{{Name: "op-create", Status: "DONE", OperationType: "CREATE_NODE_POOL"}}
	e := newTestEngine(newFakeCompute().withFixtureBlock(), gke, kube)
	e.pollInitial, e.pollMax = time.Hour, time.Hour
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
			n := testNode(fmt.Sprintf("slice-a-%d", i), testPoolName, onSubBlock("phys-a"), partition("part-1", wellknown.PartitionHealthy))
			if _, err := kube.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
				registered <- err
				return
			}
		}
		// NotReady nodes are not the cue. Nothing can be awaited for
		// "no poll happened": give the engine a window in which a wrong
		// cue would show (the backoff here is an hour).
		time.Sleep(200 * time.Millisecond)
		if polls := len(gke.operationNames()); polls != 0 {
			registered <- fmt.Errorf("polled %d times before the nodes were Ready", polls)
			return
		}
		for i := range 2 {
			n, err := kube.CoreV1().Nodes().Get(ctx, fmt.Sprintf("slice-a-%d", i), metav1.GetOptions{})
			if err == nil {
				ready(n)
				_, err = kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
			}
			if err != nil {
				registered <- err
				return
			}
		}
		registered <- nil
	}()

	pool, err := e.CreateNodePool(ctx, poolSpec(), func(string) {})
	if err != nil {
		t.Fatalf("CreateNodePool: %v", err)
	}
	if err := <-registered; err != nil {
		t.Fatal(err)
	}
	if polls := len(gke.operationNames()); polls != 1 {
		t.Errorf("polled the operation %d times, want 1 (when the nodes were Ready)", polls)
	}
	if pool.PartitionID != "part-1" || pool.ReadyNodes != 2 {
		t.Errorf("pool partition %q with %d Ready nodes, want part-1 with 2", pool.PartitionID, pool.ReadyNodes)
	}
}
