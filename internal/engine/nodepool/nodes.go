package nodepool

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// partitionView summarizes a pool's nodes.
type partitionView struct {
	nodes, ready, labelled int
	id, state              string
	names                  []string
}

func viewNodes(objs []any) partitionView {
	var v partitionView
	for _, o := range objs {
		n, ok := o.(*corev1.Node)
		if !ok {
			continue
		}
		v.nodes++
		v.names = append(v.names, n.Name)
		if clusterread.NodeReady(n) {
			v.ready++
		}
		if clusterread.PartitionID(n) != "" && clusterread.PartitionState(n) != "" {
			v.labelled++
			v.id = clusterread.PartitionID(n)
			if s := clusterread.PartitionState(n); v.state == "" || clusterread.Worse(s, v.state) {
				v.state = s // the worst state any node reports
			}
		}
	}
	sort.Strings(v.names)
	return v
}

func (v partitionView) done(waitFor string) bool {
	if v.nodes == 0 || v.labelled != v.nodes || v.ready == 0 {
		return false
	}
	switch waitFor {
	case WaitHealthy:
		return v.state == wellknown.PartitionHealthy
	case WaitUsable:
		return v.state == wellknown.PartitionHealthy || v.state == wellknown.PartitionDegraded
	}
	return true
}

// waitPartition follows the pool's nodes in the watch (a list, then a
// watch, no polling) until they satisfy waitFor, or ctx ends
// with an error that says where the pool got to. A first list that the
// API server did not answer (listed) ends it at once, with that cause.
func waitPartition(ctx context.Context, pool, waitFor string, nodes *clusterread.NodeWatch) error {
	started := time.Now()
	last := ""
	for {
		if err := nodes.Err(); err != nil {
			return err
		}
		v := viewNodes(nodes.List())
		if v.done(waitFor) {
			tflog.Info(ctx, "Node pool partition ready", map[string]any{"node_pool": pool, "partition": v.id, "state": v.state, "nodes": v.nodes, "ready": v.ready})
			return nil
		}
		if now := fmt.Sprintf("%d nodes, %d Ready, partition state %q", v.nodes, v.ready, v.state); now != last {
			tflog.Info(ctx, "Waiting for node pool partition", map[string]any{"node_pool": pool, "progress": now, "wait_for": waitFor})
			last = now
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("after %s its nodes were not ready (%s; waiting for %s): %w", time.Since(started).Round(time.Second), last, waitFor, ctx.Err())
		case <-nodes.Changed():
		}
	}
}

// poolNodes lists a pool's nodes: from the inventory, or straight from the
// API server when fresh (right after create).
func (ps *Pools) poolNodes(ctx context.Context, pool string, fresh bool) ([]*corev1.Node, error) {
	if !fresh {
		inv, err := ps.reads.Inventory(ctx)
		if err != nil {
			return nil, err
		}
		return inv.Nodes(ctx, map[string]string{wellknown.LabelNodePool: pool})
	}
	kube, err := ps.cluster(ctx)
	if err != nil {
		return nil, err
	}
	list, err := kube.Nodes().List(ctx, metav1.ListOptions{LabelSelector: wellknown.LabelNodePool + "=" + pool})
	if err != nil {
		return nil, err
	}
	out := make([]*corev1.Node, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}
