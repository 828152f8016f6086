package reservation

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// SubBlocks is a reservation block as gke_reservation_sub_blocks shows
// it: its sub-blocks with the node pools on them, and each sub-block's
// maintenance.
type SubBlocks struct {
	Block       *Block
	Maintenance []SubBlockMaintenance
}

// MaintenanceReadError is a read of the block's sub-blocks' maintenance
// that failed after the block was read; its text is the read's.
type MaintenanceReadError struct{ Err error }

func (e *MaintenanceReadError) Error() string { return e.Err.Error() }
func (e *MaintenanceReadError) Unwrap() error { return e.Err }

// ReadSubBlocks reads the block with the pools of the engine's cluster on
// its sub-blocks (BlockWithPools), then the sub-blocks' maintenance
// (BlockMaintenance, which shares the block's read). A failure of the
// second is a MaintenanceReadError; a failure to read the nodes that tell
// the pools on sub-blocks no pool names is a NodeReadError beside the
// block and its maintenance (a provider with no cluster has no nodes).
func (r *Reservations) ReadSubBlocks(ctx context.Context, project, zone, reservation, block string) (SubBlocks, error) {
	b, err := r.BlockWithPools(ctx, r.reads.Name(), project, zone, reservation, block)
	var nodesErr *NodeReadError
	if err != nil && !errors.As(err, &nodesErr) {
		return SubBlocks{}, err
	}
	maint, err := r.BlockMaintenance(ctx, project, zone, reservation, block)
	if err != nil {
		return SubBlocks{Block: b}, &MaintenanceReadError{Err: err}
	}
	if nodesErr != nil {
		return SubBlocks{Block: b, Maintenance: maint}, nodesErr
	}
	return SubBlocks{Block: b, Maintenance: maint}, nil
}

// BlockWithPools is Block plus, for every sub-block, the node pool on it,
// for the pools of cluster ("": told from the nodes only).
//
// A pool that targets a sub-block by name (every pool this provider
// makes) is found in GKE's shared list of the cluster's node pools, even
// before its nodes exist. A sub-block in use that no pool names (a pool
// that targets the whole block or reservation, where GKE chose the
// sub-block) is found from its nodes' cloud.google.com/gce-topology-subblock
// label: only then does the read wait for the cluster's nodes (a failure
// of that read is a NodeReadError beside the block, without those pools). It starts
// the node inventory either way, without waiting, for the reads that
// follow it (every pool of a stack).
func (r *Reservations) BlockWithPools(ctx context.Context, cluster, project, zone, reservation, block string) (*Block, error) {
	b, _, err := r.CachedBlock(ctx, Target{Project: project, Zone: zone, Reservation: reservation, Block: block}, NeedAll)
	if err != nil {
		return nil, err
	}
	named := map[string]string{}
	if cluster != "" {
		// The cluster's clients (a clusters.get) and the pool list, side
		// by side.
		started := make(chan struct{})
		go func() {
			defer close(started)
			r.reads.Start(ctx)
		}()
		if named, err = r.poolsNamingSubBlocks(ctx, cluster, project, reservation, block); err != nil {
			tflog.Debug(ctx, "Listing node pools failed; finding the sub-blocks' pools from the nodes", map[string]any{"cluster": cluster, "error": kernel.APIMessage(err)})
			named = map[string]string{}
		}
		<-started
	}
	unnamed := false
	for i := range b.SubBlocks {
		s := &b.SubBlocks[i]
		s.NodePool = named[s.Name]
		if s.NodePool == "" && !s.Free() && s.PhysicalSubBlock != "" {
			unnamed = true
		}
	}
	if !unnamed {
		return b, nil
	}
	nodes, err := r.reads.Nodes(ctx, map[string]string{wellknown.LabelTopologySubBlock: "", wellknown.LabelNodePool: ""})
	if err != nil {
		return b, &NodeReadError{Err: fmt.Errorf("listing nodes to find the node pools on reservation block %s/%s: %w", reservation, block, err)}
	}
	onNodes := map[string]string{}
	for _, n := range nodes {
		onNodes[n.Labels[wellknown.LabelTopologySubBlock]] = n.Labels[wellknown.LabelNodePool]
	}
	for i := range b.SubBlocks {
		if s := &b.SubBlocks[i]; s.NodePool == "" && s.PhysicalSubBlock != "" {
			s.NodePool = onNodes[s.PhysicalSubBlock]
		}
	}
	return b, nil
}

// poolsNamingSubBlocks maps the sub-blocks of the block that the
// cluster's node pools target by name to those pools' names, from the
// shared node pool list.
func (r *Reservations) poolsNamingSubBlocks(ctx context.Context, cluster, project, reservation, block string) (map[string]string, error) {
	pools, err := r.reads.NodePools(ctx, cluster)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range pools {
		if t := TargetOf(p); t.Parsed && t.Project == project && t.Reservation == reservation && t.Block == block && t.SubBlock != "" {
			out[t.SubBlock] = p.Name
		}
	}
	return out, nil
}
