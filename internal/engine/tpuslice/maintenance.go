package tpuslice

import (
	"context"
	"fmt"
	"maps"
	"sort"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/reservation"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// PartitionMaintenance is maintenance pending or in progress on the
// sub-block of a slice's partition.
type PartitionMaintenance struct {
	Partition                    string
	Reservation, Block, SubBlock string
	Maintenance                  reservation.SubBlockMaintenance
}

func (p PartitionMaintenance) String() string {
	s := fmt.Sprintf("partition %s on %s/%s/%s: maintenance %s", p.Partition, p.Reservation, p.Block, p.SubBlock, p.Maintenance.Status)
	if p.Maintenance.WindowStart != "" {
		s += " (window from " + p.Maintenance.WindowStart + ")"
	}
	return s
}

// PartitionsMaintenance finds maintenance pending or in progress on the
// sub-blocks of the partitions ids, of a slice of topology topo, of the
// engine's cluster (none when the provider names no cluster, or the
// slices were built without the node pools and reservations to read). It finds those partitions
// (not every partition) in the process-wide inventory, their node pools
// in the shared node pool list, and each block's maintenance once per
// reservation.MaintenanceTTL: a plan of many slices makes no request per slice.
// Partitions it cannot place (not in the inventory, no pool) are skipped.
func (e *Slices) PartitionsMaintenance(ctx context.Context, topo string, ids []string) ([]PartitionMaintenance, error) {
	cluster := e.reads.Name()
	if len(ids) == 0 || cluster == "" || e.pools == nil || e.res == nil {
		return nil, nil
	}
	inv, err := e.reads.Inventory(ctx)
	if err != nil {
		return nil, err
	}
	found := map[string]clusterread.PartitionPlace{}
	// A sub-slice lists partitions of its own shape, a super-slice 4x4x4
	// ones; an unknown topology is looked up in every shape.
	shapes := topology.PartitionShapes
	if topology.IsPartitionShape(topo) {
		shapes = []string{topo}
	} else if _, err := topology.Parse(topo); err == nil {
		shapes = []string{topology.PartitionTopology}
	}
	for _, shape := range shapes {
		places, err := inv.PlacesOf(ctx, shape, ids)
		if err != nil {
			return nil, err
		}
		maps.Copy(found, places)
	}
	var out []PartitionMaintenance
	for _, id := range ids {
		p, ok := found[id]
		if !ok || p.Pool == "" {
			continue
		}
		pool, err := e.pools.Read(ctx, cluster+"/nodePools/"+p.Pool)
		if err != nil || pool.Reservation == "" || pool.Block == "" {
			continue
		}
		maint, err := e.res.BlockMaintenance(ctx, pool.Project, pool.Zone, pool.Reservation, pool.Block)
		if err != nil {
			return nil, err
		}
		for _, m := range maint {
			if m.PhysicalSubBlock == p.SubBlock && m.Affected() {
				out = append(out, PartitionMaintenance{Partition: id, Reservation: pool.Reservation, Block: pool.Block, SubBlock: m.SubBlock, Maintenance: m})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Partition < out[j].Partition })
	return out, nil
}
