package nodepool

import (
	"context"
	"fmt"
	"maps"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// updateResourceLabels sets the pool's GCP labels (nodePools.update with
// resourceLabels) when from and to differ, in a request of their own, as
// GKE changes one kind of setting per update. An empty set is sent, not
// left out: it removes the labels. The nodes and partition stay.
func (ps *Pools) updateResourceLabels(ctx context.Context, from, to Spec) error {
	if maps.Equal(from.ResourceLabels, to.ResourceLabels) {
		return nil
	}
	id := to.ID()
	labels := map[string]string{}
	maps.Copy(labels, to.ResourceLabels)
	tflog.Info(ctx, "Updating the GCP labels of sub-block node pool", map[string]any{"node_pool": id, "resource_labels": len(labels)})
	op, err := ps.gke.UpdateNodePool(ctx, id, &container.UpdateNodePoolRequest{
		Name:           id,
		ResourceLabels: &container.ResourceLabels{Labels: labels, ForceSendFields: []string{"Labels"}},
	})
	if err != nil {
		return fmt.Errorf("updating the GCP labels of node pool %s: %s", id, kernel.APIMessage(err))
	}
	if err := ps.waiter.WaitGKE(ctx, ps.gke, to.Project, to.Location, op, nil); err != nil {
		return fmt.Errorf("updating the GCP labels of node pool %s: %w", id, err)
	}
	return nil
}
