package nodepool

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// List is the sub-block node pools of a cluster, and the names of its
// other pools (a default pool, CPU pools), which gke_subblock_node_pool
// cannot manage: what `terraform query` shows.
type List struct {
	Pools []*Pool
	Other []string
}

// List lists the cluster's node pools (one nodePools.list) and reads each
// that targets a reservation block or sub-block (its nodes and partition
// from the inventory), sorted by name.
func (ps *Pools) List(ctx context.Context, project, location, cluster string) (*List, error) {
	clusterName := fmt.Sprintf("projects/%s/locations/%s/clusters/%s", project, location, cluster)
	// The shared list, so that each pool's read below is served from it:
	// one nodePools.list in all.
	pools, err := ps.reads.NodePools(ctx, clusterName)
	if err != nil {
		return nil, fmt.Errorf("listing the node pools of %s: %s", clusterName, kernel.APIMessage(err))
	}
	out := &List{}
	for _, p := range pools {
		id := clusterName + "/nodePools/" + p.Name
		if State(id, p).Block == "" {
			out.Other = append(out.Other, p.Name)
			continue
		}
		pool, err := ps.Read(ctx, id)
		if errors.Is(err, kernel.ErrNotFound) {
			continue // deleted since the list
		}
		if err != nil {
			return nil, err
		}
		out.Pools = append(out.Pools, pool)
	}
	sort.Slice(out.Pools, func(i, j int) bool { return out.Pools[i].Name < out.Pools[j].Name })
	sort.Strings(out.Other)
	return out, nil
}
