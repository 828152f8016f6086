package clusterread

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// poolListTTL bounds how long one list of a cluster's node pools serves
// reads: a plan reads every pool within seconds.
const poolListTTL = 30 * time.Second

// nodePoolCache lets the reads of one provider process share one
// nodePools.list per cluster instead of one nodePools.get per pool: a plan
// of a full pod reads 144 pools. It serves reads only (never the read
// right after a create), forgets a cluster's list when this process
// creates or deletes a pool in it, and lists again after poolListTTL. A
// pool missing from the list, or a list that fails, falls back to a get.
type nodePoolCache struct {
	mu    sync.Mutex
	lists map[string]*poolList // by cluster: projects/P/locations/L/clusters/C
}

type poolList struct {
	done  chan struct{} // closed when pools and err are set
	at    time.Time
	pools map[string]*container.NodePool // by full node pool name
	order []*container.NodePool          // as listed
	err   error
}

// newNodePoolCache returns an empty cache.
func newNodePoolCache() *nodePoolCache {
	return &nodePoolCache{lists: map[string]*poolList{}}
}

// get returns the pool named id (projects/P/locations/L/clusters/C/
// nodePools/N) from the cluster's list, listing it if needed; false when
// the caller should get the pool itself.
func (c *nodePoolCache) get(ctx context.Context, gke kernel.GKE, id string) (*container.NodePool, bool) {
	l := c.listed(ctx, gke, id[:strings.LastIndex(id, "/nodePools/")], poolListTTL)
	if l == nil || l.err != nil {
		return nil, false
	}
	p, ok := l.pools[id]
	return p, ok
}

// listWithin returns the cluster's node pools (projects/P/locations/L/
// clusters/C) from the shared list made at most maxAge ago, listing them
// if needed, in the API's order; the reads that follow it are served from
// the same list.
func (c *nodePoolCache) listWithin(ctx context.Context, gke kernel.GKE, cluster string, maxAge time.Duration) ([]*container.NodePool, error) {
	l := c.listed(ctx, gke, cluster, maxAge)
	if l == nil {
		return nil, ctx.Err()
	}
	return l.order, l.err
}

// listed is the cluster's list, made by this call or shared with another
// (waited for), made at most maxAge ago; nil when ctx ended first.
func (c *nodePoolCache) listed(ctx context.Context, gke kernel.GKE, cluster string, maxAge time.Duration) *poolList {
	c.mu.Lock()
	l := c.lists[cluster]
	if l != nil {
		select {
		case <-l.done:
			if time.Since(l.at) > maxAge {
				l = nil
			}
		default: // being listed: wait for it below
		}
	}
	if l == nil {
		l = &poolList{done: make(chan struct{})}
		c.lists[cluster] = l
		c.mu.Unlock()
		pools, err := gke.ListNodePools(ctx, cluster)
		l.at, l.err, l.order, l.pools = time.Now(), err, pools, make(map[string]*container.NodePool, len(pools))
		for _, p := range pools {
			l.pools[cluster+"/nodePools/"+p.Name] = p
		}
		close(l.done)
		if err != nil {
			tflog.Debug(ctx, "Listing node pools failed; reading each pool instead", map[string]any{"cluster": cluster, "error": kernel.APIMessage(err)})
			c.forget(cluster, l)
		}
		return l
	}
	c.mu.Unlock()
	select {
	case <-l.done:
		return l
	case <-ctx.Done():
		return nil
	}
}

// invalidate forgets the cluster's list (after a create or delete).
func (c *nodePoolCache) invalidate(id string) {
	if i := strings.LastIndex(id, "/nodePools/"); i >= 0 {
		id = id[:i]
	}
	c.mu.Lock()
	delete(c.lists, id)
	c.mu.Unlock()
}

func (c *nodePoolCache) forget(cluster string, l *poolList) {
	c.mu.Lock()
	if c.lists[cluster] == l {
		delete(c.lists, cluster)
	}
	c.mu.Unlock()
}
