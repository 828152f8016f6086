package clusterread

import (
	"context"
	"errors"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// Known is the inventory once its nodes and Slices are listed, and
// whether they could be. A plan does not fail on a cluster it cannot read
// yet (one that this apply creates); it does fail on one it cannot read
// for a reason that waiting does not cure (a ClusterAccessError,
// returned). It groups no partitions.
func (r *Reads) Known(ctx context.Context) (*Inventory, bool, error) {
	inv, err := r.Inventory(ctx)
	if err == nil {
		if err = inv.StartAll(ctx); err == nil {
			return inv, true, nil
		}
	}
	var access *ClusterAccessError
	if errors.As(err, &access) {
		return nil, false, err
	}
	if errors.Is(err, kernel.ErrNoAnswer) {
		// The GKE API, asked for the cluster's endpoint, did not answer:
		// not a cluster that is yet to be made, and never passed over.
		return nil, false, &ClusterAccessError{What: "endpoint", Err: err, Advice: "The GKE API did not answer the provider's " +
			"request for the cluster's Kubernetes endpoint"}
	}
	tflog.Debug(ctx, "Partitions unknown at plan", map[string]any{"reason": err.Error()})
	return nil, false, nil //nolint:nilerr // a cluster not made yet, or not reachable yet, does not fail a plan
}
