package clusterread

import (
	"context"
	"fmt"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// PartitionFilter says which partitions ListPartitions returns; zero
// values match every partition.
type PartitionFilter struct {
	// Shape is the partitions' shape; empty means 4x4x4.
	Shape             string
	NodePools, States []string
	Block             string
	// AvailableOnly keeps the partitions a new slice could use (unusable
	// with DEGRADED allowed).
	AvailableOnly bool
}

// ListPartitions returns the cluster's partitions that pass f, sorted by
// ID, from the process-wide inventory.
func (r *Reads) ListPartitions(ctx context.Context, f PartitionFilter) ([]Partition, error) {
	inv, err := r.Inventory(ctx)
	if err != nil {
		return nil, err
	}
	shape := f.Shape
	if shape == "" {
		shape = topology.PartitionTopology
	}
	if !topology.IsPartitionShape(shape) {
		return nil, fmt.Errorf("%q is not a partition shape; the shapes are %s", shape, strings.Join(topology.PartitionShapes, ", "))
	}
	parts, err := inv.PartitionsOf(ctx, shape)
	if err != nil {
		return nil, err
	}
	pools, states := SetOf(f.NodePools), SetOf(f.States)
	out := make([]Partition, 0, len(parts))
	for _, p := range parts {
		if (len(pools) > 0 && !pools[p.NodePool]) || (len(states) > 0 && !states[p.State]) ||
			(f.Block != "" && p.Block != f.Block) || (f.AvailableOnly && p.Unusable("", true) != "") {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}

func SetOf(values []string) map[string]bool {
	out := make(map[string]bool, len(values))
	for _, v := range values {
		out[v] = true
	}
	return out
}

// maxSummarised bounds the partitions a summary names one by one.
const maxSummarised = 10

// UnhealthyPartitionsOnce summarises, once per provider process, the
// cluster's partitions that are not HEALTHY with every node Ready: the
// first call that finds any returns the summary, every later call "". A
// plan of 144 pools then says it once, not once per pool.
func (r *Reads) UnhealthyPartitionsOnce(ctx context.Context) string {
	r.reportMu.Lock()
	done := r.unhealthyReported
	r.reportMu.Unlock()
	if done {
		return ""
	}
	inv, err := r.Inventory(ctx)
	if err != nil {
		return ""
	}
	parts, err := inv.partitionsOfNodes(ctx)
	if err != nil {
		return ""
	}
	var bad []Partition
	for _, p := range parts {
		if p.State != wellknown.PartitionHealthy || p.Ready < p.Nodes {
			bad = append(bad, p)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	r.reportMu.Lock()
	defer r.reportMu.Unlock()
	if r.unhealthyReported {
		return ""
	}
	r.unhealthyReported = true
	var b strings.Builder
	fmt.Fprintf(&b, "%d of the cluster's %d partitions are not HEALTHY with every node Ready:", len(bad), len(parts))
	for i, p := range bad {
		if i == maxSummarised {
			fmt.Fprintf(&b, "\n  and %d more (data source gke_partitions lists them all)", len(bad)-maxSummarised)
			break
		}
		state := p.State
		if state == "" {
			state = "no state label"
		}
		fmt.Fprintf(&b, "\n  node pool %s, partition %s: %s, %d/%d nodes Ready", p.NodePool, p.ID, state, p.Ready, p.Nodes)
		if p.Slice != "" {
			fmt.Fprintf(&b, ", used by slice %s", p.Slice)
		}
	}
	return b.String()
}
