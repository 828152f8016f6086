package tpuslice

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// selectPartitions chooses and claims partitions for req. A choice that
// cannot be met is tried again for the settle time only while a node pool
// of the selection is pending (see pendingPools): otherwise the shortage
// is final (partitions held by other slices, unhealthy, too few) and is
// reported at once.
func (e *Slices) selectPartitions(ctx context.Context, inv *clusterread.Inventory, req SliceRequest, t topology.Topology) ([]string, error) {
	sreq := selectQueryOf(req.Name, t, *req.Selector, req.DeviceAccess)
	if inv == nil {
		var err error
		if inv, err = e.reads.Inventory(ctx); err != nil {
			return nil, err
		}
	}
	settle := time.NewTimer(e.selectionSettle)
	defer settle.Stop()
	var pools poolStatus
	for {
		// The pools of a workload policy, again each round: pools of this
		// apply are listed once their create has started.
		sel, err := e.policyPools(ctx, *req.Selector)
		if err != nil {
			return nil, err
		}
		sreq.NodePools = sel.NodePools
		if parts, err := inv.Partitions(ctx); err == nil {
			if sreq.Block, err = e.resolveBlock(ctx, sel, parts); err != nil {
				return nil, err
			}
		}
		var ids []string
		var parts []clusterread.Partition
		pending, known := []string(nil), false
		if sel.WorkloadPolicy != "" && len(sel.NodePools) == 0 {
			err = noPolicyPools(e.reads.Name(), sel) // none yet: wait for the settle time
		} else {
			ids, parts, err = inv.SelectAndClaim(ctx, sreq.Slice, sreq.shape(), func(parts []clusterread.Partition) ([]string, error) {
				return choosePartitions(parts, sreq)
			})
			if parts == nil || err == nil {
				return ids, err
			}
			pending, known = e.pendingPools(ctx, inv, sel, &pools)
		}
		if known && len(pending) == 0 {
			tflog.Info(ctx, "Selection cannot be met and no node pool of it is pending: failing without waiting", map[string]any{"slice": req.Name, "reason": err.Error()})
			return nil, fmt.Errorf("%w; every node pool of the selection is created and its nodes have registered, so waiting would not change this", err)
		}
		tflog.Debug(ctx, "Selection not met yet; waiting for partitions to reach the watch", map[string]any{
			"slice": req.Name, "reason": err.Error(), "pending_node_pools": strings.Join(pending, ","),
		})
		select {
		case <-ctx.Done():
			return nil, err
		case <-settle.C:
			return nil, err
		case <-time.After(selectionRetry):
		}
	}
}

// DefaultPoolRelist bounds how often a selection that waits for pending
// node pools lists the cluster's node pools again (Options.PoolRelist).
const DefaultPoolRelist = time.Second

// poolStatus is the last list of the cluster's node pools a selection
// made, and whether one of them was still being created then.
type poolStatus struct {
	pools    []*container.NodePool
	at       time.Time
	creating bool
}

// pendingPools names the node pools of the selection whose partitions may
// still change what selection finds: the pools sel names (or, naming
// none, every pool of the bound cluster with a reservation affinity, only those
// on the reservation block sel.Block names when it names one) that GKE
// does not list yet, that it is still creating (PROVISIONING,
// RECONCILING), or whose nodes the inventory's watch has not caught up
// with (a node the API server has that the inventory lacks, or holds with
// other labels or readiness). A pool GKE has finished with fewer nodes
// than it asked for (an unhealthy host has none) is not pending: its
// partition's state is GKE's last word. known is false when that cannot
// be told (no cluster named, a list failed): the caller then waits as
// before. The GKE list is kept in last and read again at most every
// poolRelist, and only while a pool was being created; it comes from the
// engine's shared list when that is younger than poolRelist.
func (e *Slices) pendingPools(ctx context.Context, inv *clusterread.Inventory, sel PartitionSelector, last *poolStatus) (pending []string, known bool) {
	if e.reads.Name() == "" {
		return nil, false
	}
	if last.pools == nil || last.creating && time.Since(last.at) >= e.poolRelist {
		// The engine's shared list, if made within poolRelist: the one
		// policyPools just read, or another waiting selection's.
		list, err := e.reads.NodePoolsWithin(ctx, e.reads.Name(), e.poolRelist)
		if err != nil {
			tflog.Debug(ctx, "Cannot list node pools to tell whether a selection may still be met", map[string]any{"error": kernel.APIMessage(err)})
			return nil, false
		}
		*last = poolStatus{pools: list, at: time.Now()}
		if last.pools == nil {
			last.pools = []*container.NodePool{}
		}
	}
	byName := map[string]*container.NodePool{}
	for _, p := range last.pools {
		byName[p.Name] = p
	}
	names := sel.NodePools
	if len(names) == 0 {
		names = reservationPools(last.pools, sel.Block)
	}
	last.creating = false
	var running []string
	for _, name := range names {
		p, listed := byName[name]
		switch {
		case !listed:
			pending = append(pending, name+" (not created yet)")
			last.creating = true
		case p.Status == "PROVISIONING" || p.Status == "RECONCILING" || p.Status == "STATUS_UNSPECIFIED" || p.Status == "":
			pending = append(pending, name+" ("+p.Status+")")
			last.creating = true
		case p.Status == "RUNNING":
			running = append(running, name)
		}
		// ERROR, STOPPING: the pool brings no partition.
	}
	if len(pending) > 0 || len(running) == 0 {
		return pending, true
	}
	behind, err := e.watchBehind(ctx, inv, running)
	if err != nil {
		tflog.Debug(ctx, "Cannot list nodes to tell whether a selection may still be met", map[string]any{"error": err.Error()})
		return nil, false
	}
	return behind, true
}

// watchBehind names the pools whose nodes, as the API server lists them
// now (one list for all pools), the inventory does not hold yet, or holds
// with other labels or readiness.
func (e *Slices) watchBehind(ctx context.Context, inv *clusterread.Inventory, pools []string) ([]string, error) {
	kube, err := e.cluster(ctx)
	if err != nil {
		return nil, err
	}
	list, err := kube.Nodes().List(ctx, metav1.ListOptions{LabelSelector: fmt.Sprintf("%s in (%s)", wellknown.LabelNodePool, strings.Join(pools, ","))})
	if err != nil {
		return nil, err
	}
	held := map[string]*corev1.Node{}
	for _, pool := range pools {
		nodes, err := inv.Nodes(ctx, map[string]string{wellknown.LabelNodePool: pool})
		if err != nil {
			return nil, err
		}
		for _, n := range nodes {
			held[n.Name] = n
		}
	}
	behind := map[string]bool{}
	for i := range list.Items {
		n := &list.Items[i]
		h, ok := held[n.Name]
		if !ok || !maps.Equal(h.Labels, n.Labels) || clusterread.NodeReady(h) != clusterread.NodeReady(n) {
			behind[n.Labels[wellknown.LabelNodePool]] = true
		}
	}
	out := make([]string, 0, len(behind))
	for _, pool := range slices.Sorted(maps.Keys(behind)) {
		out = append(out, pool+" (its nodes have not all reached the watch)")
	}
	return out, nil
}
