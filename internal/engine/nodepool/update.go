package nodepool

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// Update changes in place what GKE changes in place, from the
// pool as it was (from) to the pool as declared (to): the nodes'
// Kubernetes labels and taints (nodePools.update) and auto-repair and
// auto-upgrade (nodePools.setManagement). The pool, its nodes and its
// partition stay; every other change replaces the pool.
func (ps *Pools) Update(ctx context.Context, from, to Spec) (*Pool, error) {
	id := to.ID()
	ps.reads.PoolsChanged(id)
	if !from.sameNodeSettings(to) {
		labels := map[string]string{}
		maps.Copy(labels, to.Labels)
		taints := []*container.NodeTaint{}
		for _, t := range to.Taints {
			taints = append(taints, &container.NodeTaint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
		tflog.Info(ctx, "Updating the labels and taints of sub-block node pool", map[string]any{"node_pool": id, "labels": len(labels), "taints": len(taints)})
		// Empty lists are sent, not left out: they clear the labels or
		// taints.
		op, err := ps.gke.UpdateNodePool(ctx, id, &container.UpdateNodePoolRequest{
			Name:   id,
			Labels: &container.NodeLabels{Labels: labels, ForceSendFields: []string{"Labels"}},
			Taints: &container.NodeTaints{Taints: taints, ForceSendFields: []string{"Taints"}},
		})
		if err != nil {
			return nil, fmt.Errorf("updating node pool %s: %s", id, kernel.APIMessage(err))
		}
		if err := ps.waiter.WaitGKE(ctx, ps.gke, to.Project, to.Location, op, nil); err != nil {
			return nil, fmt.Errorf("updating node pool %s: %w", id, err)
		}
	}
	if err := ps.updateResourceLabels(ctx, from, to); err != nil {
		return nil, err
	}
	if !from.sameManagement(to) {
		tflog.Info(ctx, "Setting the management of sub-block node pool", map[string]any{"node_pool": id, "auto_repair": to.AutoRepair, "auto_upgrade": to.AutoUpgrade})
		op, err := ps.gke.SetNodePoolManagement(ctx, id, &container.SetNodePoolManagementRequest{
			Name:       id,
			Management: &container.NodeManagement{AutoRepair: to.AutoRepair, AutoUpgrade: to.AutoUpgrade, ForceSendFields: []string{"AutoRepair", "AutoUpgrade"}},
		})
		if err != nil {
			return nil, fmt.Errorf("setting the management of node pool %s: %s", id, kernel.APIMessage(err))
		}
		if err := ps.waiter.WaitGKE(ctx, ps.gke, to.Project, to.Location, op, nil); err != nil {
			return nil, fmt.Errorf("setting the management of node pool %s: %w", id, err)
		}
	}
	return ps.read(ctx, id, true)
}

// Delete deletes the pool and waits; a pool already gone is not an
// error.
func (ps *Pools) Delete(ctx context.Context, id string) error {
	id, err := CanonicalID(id)
	if err != nil {
		return err
	}
	project, location, _, _, _ := parseNodePoolID(id)
	tflog.Info(ctx, "Deleting sub-block node pool", map[string]any{"node_pool": id})
	ps.reads.PoolsChanged(id)
	// The delete frees the pool's sub-block (not read here): no cached
	// read of any block serves a check after it.
	ps.res.ChangingAll()
	defer ps.res.ChangingAll()
	op, err := ps.gke.DeleteNodePool(ctx, id)
	for {
		running, busy := runningOperation(err)
		if !busy {
			break
		}
		// GKE refuses the delete while an operation on the pool runs:
		// its create that outlived the create's timeout, say.
		if err := ps.awaitRunning(ctx, id, project, location, running); err != nil {
			return err
		}
		op, err = ps.gke.DeleteNodePool(ctx, id)
	}
	if kernel.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("deleting node pool %s: %s", id, kernel.APIMessage(err))
	}
	if err := ps.waiter.WaitGKE(ctx, ps.gke, project, location, op, nil); err != nil {
		return fmt.Errorf("deleting node pool %s: %w", id, err)
	}
	return nil
}
