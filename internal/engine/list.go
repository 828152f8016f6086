package engine

import "context"

// ListNodePools lists the cluster's node pools (one nodePools.list) and
// reads each that targets a reservation block or sub-block as
// ReadNodePool does (its nodes and partition from the inventory), sorted
// by name (day2.Ops.ListNodePools).
func (e *Engine) ListNodePools(ctx context.Context, project, location, cluster string) (*NodePoolList, error) {
	return e.day2.ListNodePools(ctx, project, location, cluster)
}
