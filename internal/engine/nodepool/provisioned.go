package nodepool

import (
	"context"
	"fmt"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// waitPoolProvisioned polls a node pool whose create operation is not
// known (the pool was adopted) until it leaves PROVISIONING.
func (ps *Pools) waitPoolProvisioned(ctx context.Context, id string, early *kernel.EarlyPoll) error {
	status := "PROVISIONING"
	return ps.waiter.PollUntil(ctx, early, func() string {
		return fmt.Sprintf("node pool %s, which was %s", id, status)
	}, func(bool) (bool, error) {
		p, err := ps.gke.GetNodePool(ctx, id)
		if err != nil {
			return false, fmt.Errorf("reading node pool %s: %s", id, kernel.APIMessage(err))
		}
		status = p.Status
		switch status {
		case "RUNNING":
			return true, nil
		case "PROVISIONING", "RECONCILING", "STATUS_UNSPECIFIED", "":
			return false, nil
		}
		return true, fmt.Errorf("node pool %s is %s: %s", id, status, p.StatusMessage)
	})
}
