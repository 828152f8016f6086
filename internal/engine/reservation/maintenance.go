package reservation

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// Maintenance states of a sub-block, as the Compute API's
// UpcomingMaintenance.maintenanceStatus names them.
const (
	MaintenanceNone    = "NONE"
	MaintenancePending = "PENDING"
	MaintenanceOngoing = "ONGOING"
)

// SubBlockMaintenance is the maintenance of one sub-block, as the Compute
// API reports it in reservationSubBlockMaintenance.
type SubBlockMaintenance struct {
	// SubBlock is the sub-block's name; PhysicalSubBlock its opaque
	// physicalTopology.subBlock, which its nodes carry as
	// cloud.google.com/gce-topology-subblock.
	SubBlock, PhysicalSubBlock string
	// Status is MaintenanceNone, MaintenancePending or MaintenanceOngoing.
	Status string
	// PendingHosts and OngoingHosts count the hosts with maintenance
	// pending and in progress.
	PendingHosts, OngoingHosts int64
	// WindowStart and WindowEnd are the maintenance window (RFC 3339), ""
	// when the API gives none.
	WindowStart, WindowEnd string
	// CanReschedule says whether the customer may start it
	// (performMaintenance) before its window.
	CanReschedule bool
}

// Affected says whether maintenance is pending or in progress.
func (m SubBlockMaintenance) Affected() bool { return m.Status != MaintenanceNone }

// maintenanceOf reads a sub-block's maintenance from the API's answer.
func maintenanceOf(s *computepb.ReservationSubBlock) SubBlockMaintenance {
	out := SubBlockMaintenance{SubBlock: s.GetName(), PhysicalSubBlock: s.GetPhysicalTopology().GetSubBlock(), Status: MaintenanceNone}
	m := s.GetReservationSubBlockMaintenance()
	if m == nil {
		return out
	}
	out.PendingHosts, out.OngoingHosts = int64(m.GetMaintenancePendingCount()), int64(m.GetMaintenanceOngoingCount())
	up := m.GetUpcomingGroupMaintenance()
	out.WindowStart, out.WindowEnd, out.CanReschedule = up.GetWindowStartTime(), up.GetWindowEndTime(), up.GetCanReschedule()
	switch {
	case out.OngoingHosts > 0 || up.GetMaintenanceStatus() == MaintenanceOngoing:
		out.Status = MaintenanceOngoing
	case out.PendingHosts > 0 || up.GetMaintenanceStatus() == MaintenancePending:
		out.Status = MaintenancePending
	}
	return out
}

// MaintenanceTTL is how long a block's maintenance, once read, serves
// the plan-time checks of the process: one Terraform plan reads each
// block once, however many slices it has there.
const MaintenanceTTL = 30 * time.Second

// maintenanceCache holds each block's sub-block maintenance for a while.
type maintenanceCache struct {
	mu      sync.Mutex
	entries map[string]*maintenanceEntry
}

type maintenanceEntry struct {
	once sync.Once
	read time.Time
	subs []SubBlockMaintenance
	err  error
}

func newMaintenanceCache() *maintenanceCache {
	return &maintenanceCache{entries: map[string]*maintenanceEntry{}}
}

// BlockMaintenance reads the maintenance of every sub-block of a block,
// sorted by sub-block name: one list of the block's sub-blocks, shared
// for MaintenanceTTL by every caller of the process (concurrent
// callers wait for the one read). A failed read is not kept.
func (r *Reservations) BlockMaintenance(ctx context.Context, project, zone, reservation, block string) ([]SubBlockMaintenance, error) {
	key := project + "/" + zone + "/" + reservation + "/" + block
	c := r.maintenance
	c.mu.Lock()
	ent := c.entries[key]
	if ent == nil || (!ent.read.IsZero() && time.Since(ent.read) > MaintenanceTTL) {
		ent = &maintenanceEntry{}
		c.entries[key] = ent
	}
	c.mu.Unlock()
	ent.once.Do(func() {
		ent.subs, ent.err = r.readBlockMaintenance(ctx, project, zone, reservation, block)
		ent.read = time.Now()
	})
	if ent.err != nil {
		c.mu.Lock()
		if c.entries[key] == ent {
			delete(c.entries, key)
		}
		c.mu.Unlock()
	}
	return ent.subs, ent.err
}

// ForgetMaintenance drops a block's cached maintenance (after the engine
// changed it).
func (r *Reservations) ForgetMaintenance(project, zone, reservation, block string) {
	c := r.maintenance
	c.mu.Lock()
	delete(c.entries, project+"/"+zone+"/"+reservation+"/"+block)
	c.mu.Unlock()
	r.blocks.forget(blockKey{project: project, zone: zone, reservation: reservation, block: block})
}

// readBlockMaintenance reads the block's sub-blocks' maintenance: from
// the engine's read of the block when one is cached or in flight (a plan
// that reads gke_reservation_sub_blocks, pool checks), else with one list
// of the sub-blocks.
func (r *Reservations) readBlockMaintenance(ctx context.Context, project, zone, reservation, block string) ([]SubBlockMaintenance, error) {
	if b := r.blocks.peek(ctx, blockKey{project: project, zone: zone, reservation: reservation, block: block}); b != nil {
		out := make([]SubBlockMaintenance, 0, len(b.SubBlocks))
		for _, s := range b.SubBlocks {
			out = append(out, s.Maintenance)
		}
		return out, nil // sorted by name, as the block's sub-blocks
	}
	subs, err := r.compute.ListReservationSubBlocks(ctx, project, zone, reservation, block)
	if err != nil {
		if kernel.IsNotFound(err) {
			return nil, fmt.Errorf("reservation block %q was not found in reservation %q (projects/%s/zones/%s)", block, reservation, project, zone)
		}
		return nil, fmt.Errorf("listing the sub-blocks of reservation block %s/%s for their maintenance: %s", reservation, block, kernel.APIMessage(err))
	}
	out := make([]SubBlockMaintenance, 0, len(subs))
	for _, s := range subs {
		out = append(out, maintenanceOf(s))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SubBlock < out[j].SubBlock })
	return out, nil
}
