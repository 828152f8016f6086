package sandbox

import (
	"context"
	"fmt"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// SetHostHealth changes the health of one host of a sub-block at run time,
// as a hardware fault or a repair would. The nodes and partition state of
// the pool on that sub-block follow: an UNHEALTHY host makes its node
// NotReady (or keeps a missing node away), a repaired host gets its node.
func (sb *Sandbox) SetHostHealth(ctx context.Context, reservation, block, subBlock string, host int, health string) error {
	if host < 0 || host >= HostsPerSubBlock {
		return fmt.Errorf("host %d is not 0..%d", host, HostsPerSubBlock-1)
	}
	if health != HostHealthy && health != HostDegraded && health != HostUnhealthy {
		return fmt.Errorf("health %q is not HEALTHY, DEGRADED or UNHEALTHY", health)
	}
	w := sb.world
	w.Mu.Lock()
	sub := w.FindSubBlock(reservation, block, subBlock)
	if sub == nil {
		w.Mu.Unlock()
		return fmt.Errorf("sub-block %s/%s/%s is not in the inventory", reservation, block, subBlock)
	}
	sub.Hosts[host] = health
	pool := w.NodePools[sub.NodePool]
	w.Mu.Unlock()
	if pool == nil {
		return nil
	}
	return w.ReconcileNodes(ctx, pool)
}

// VanishNode deletes a node as if its VM disappeared: its host is marked
// UNHEALTHY so the node stays away (the partition becomes INCOMPLETE)
// until SetHostHealth repairs it.
func (sb *Sandbox) VanishNode(ctx context.Context, name string) error {
	node, err := sb.world.Kube.CoreV1().Nodes().Get(ctx, name, metaGet)
	if err != nil {
		return err
	}
	host, err := strconv.Atoi(node.Annotations[cloud.AnnotationHostIndex])
	if err != nil {
		return fmt.Errorf("node %s is not a sandbox node pool node", name)
	}
	w := sb.world
	w.Mu.Lock()
	pool := w.NodePools[node.Labels[wellknown.LabelNodePool]]
	if pool == nil {
		w.Mu.Unlock()
		return fmt.Errorf("node %s belongs to no sandbox node pool", name)
	}
	pool.SubBlock.Hosts[host] = HostUnhealthy
	w.Mu.Unlock()
	pool.ReconcileMu.Lock()
	err = w.Kube.CoreV1().Nodes().Delete(ctx, name, metaDelete)
	pool.ReconcileMu.Unlock()
	if err != nil {
		return err
	}
	return w.ReconcileNodes(ctx, pool)
}

// WaitForOperations waits until no emulated operation is running (for
// tests that must not leave work behind).
func (sb *Sandbox) WaitForOperations(ctx context.Context) error {
	for {
		sb.world.Mu.Lock()
		running := 0
		for _, op := range sb.world.Ops {
			if !op.Done {
				running++
			}
		}
		sb.world.Mu.Unlock()
		if running == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d operation(s) still running: %w", running, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// NodesOfPool counts the Kubernetes nodes of a node pool.
func (sb *Sandbox) NodesOfPool(ctx context.Context, pool string) (int, error) {
	list, err := sb.world.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: wellknown.LabelNodePool + "=" + pool})
	if err != nil {
		return 0, err
	}
	return len(list.Items), nil
}

// NodesWithLabel counts the nodes matching a label selector.
func (sb *Sandbox) NodesWithLabel(ctx context.Context, selector string) (int, error) {
	list, err := sb.world.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return 0, err
	}
	return len(list.Items), nil
}

var (
	metaGet    = metav1.GetOptions{}
	metaDelete = metav1.DeleteOptions{}
)
