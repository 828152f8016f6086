package nodepool

import (
	"context"
	"fmt"
	"slices"

	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// ReadOption asks Read for more than the pool.
type ReadOption int

// SummariseUnhealthy asks Read for UnhealthySummary: when the
// pool's partition is not HEALTHY, the summary, once per provider process,
// of every partition of the cluster that is not (clusterread.Reads.UnhealthyPartitionsOnce).
const SummariseUnhealthy ReadOption = 1

// Read reads the pool from GKE and its partition from the nodes
// (from the process-wide inventory, so that a plan of many pools lists
// the nodes once); kernel.ErrNotFound when the pool is gone.
func (ps *Pools) Read(ctx context.Context, id string, opts ...ReadOption) (*Pool, error) {
	p, err := ps.read(ctx, id, false)
	if err != nil || !slices.Contains(opts, SummariseUnhealthy) {
		return p, err
	}
	if p.PartitionState != "" && p.PartitionState != wellknown.PartitionHealthy {
		p.UnhealthySummary = ps.reads.UnhealthyPartitionsOnce(ctx)
	}
	return p, nil
}

func (ps *Pools) read(ctx context.Context, id string, fresh bool) (*Pool, error) {
	id, err := CanonicalID(id)
	if err != nil {
		return nil, err
	}
	project, _, _, name, _ := parseNodePoolID(id)
	p, err := ps.reads.NodePool(ctx, id, fresh)
	if kernel.IsNotFound(err) {
		return nil, kernel.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading node pool %s: %s", id, kernel.APIMessage(err))
	}
	out := State(id, p)

	nodes, err := ps.poolNodes(ctx, name, fresh)
	if err != nil {
		return nil, fmt.Errorf("listing the nodes of node pool %s: %w", id, err)
	}
	objs := make([]any, len(nodes))
	physical := ""
	for i, n := range nodes {
		objs[i] = n
		if physical == "" {
			physical = n.Labels[wellknown.LabelTopologySubBlock]
		}
	}
	v := viewNodes(objs)
	out.PartitionID, out.PartitionState, out.NodeNames, out.ReadyNodes = v.id, v.state, v.names, int64(v.ready)
	if out.NodeNames == nil {
		out.NodeNames = []string{}
	}

	// A pool targeted at a block: find its sub-block from the nodes'
	// physical topology.
	if out.SubBlock == "" && out.Block != "" && physical != "" && out.Zone != "" {
		if block, _, err := ps.res.CachedBlock(ctx, reservation.Target{Project: project, Zone: out.Zone, Reservation: out.Reservation, Block: out.Block}, reservation.NeedLayout); err == nil {
			for _, s := range block.SubBlocks {
				if s.PhysicalSubBlock == physical {
					out.SubBlock = s.Name
				}
			}
		}
	}
	return out, nil
}

// State maps a GKE node pool to the engine's Pool, without its
// nodes and partition.
func State(id string, p *container.NodePool) *Pool {
	project, location, cluster, name, _ := parseNodePoolID(id)
	out := &Pool{
		ID: id, Project: project, Location: location, Cluster: cluster, Name: name,
		Status: p.Status, NodeCount: p.InitialNodeCount,
	}
	if len(p.Locations) > 0 {
		out.Zone = p.Locations[0]
	}
	if p.PlacementPolicy != nil {
		out.Policy = p.PlacementPolicy.PolicyName
	}
	if m := p.Management; m != nil {
		out.AutoRepair, out.AutoUpgrade = m.AutoRepair, m.AutoUpgrade
	}
	if c := p.Config; c != nil {
		out.MachineType, out.Labels, out.ResourceLabels = c.MachineType, c.Labels, c.ResourceLabels
		for _, t := range c.Taints {
			out.Taints = append(out.Taints, Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
		if t := reservation.TargetOf(p); t.Set {
			out.ReservationPath = t.Path
			if t.Parsed {
				out.Reservation, out.Block, out.SubBlock = t.Reservation, t.Block, t.SubBlock
			}
		}
	}
	return out
}
