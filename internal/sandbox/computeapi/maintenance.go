package computeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// Maintenance of reservation blocks and sub-blocks, as Compute Engine
// exposes it for All Capacity mode reservations:
//
//	POST zones/Z/reservations/R/reservationBlocks/B/performMaintenance
//	     body ReservationsBlocksPerformMaintenanceRequest {maintenanceScope}
//	POST zones/Z/reservations/R/reservationBlocks/B/reservationSubBlocks/S/performMaintenance
//	     no body
//
// Both answer a zonal Operation. A sub-block's maintenance goes from
// PENDING (announced: the inventory's maintenance: PENDING, or the control
// endpoint POST /sandbox/maintenance) to ONGOING when performMaintenance
// starts it, then to none after Faults.MaintenanceMs. While ONGOING its
// hosts are UNHEALTHY (its nodes NotReady, partitions UNHEALTHY); after it
// they are HEALTHY. The sub-block reports it in
// reservationSubBlockMaintenance and the block in reservationMaintenance
// (GroupMaintenanceInfo), and the nodes of a pool on the sub-block carry
// GKE's labels cloud.google.com/scheduled-maintenance-time (PENDING) and
// cloud.google.com/active-node-maintenance=ONGOING.

// Defaults of Faults.MaintenanceMs and Faults.FaultyRepairMs.
const (
	defaultMaintenanceTime = 3 * time.Second
	defaultFaultyRepair    = 10 * time.Second
)

// upcomingMaintenanceJSON is UpcomingMaintenance.
type upcomingMaintenanceJSON struct {
	CanReschedule         bool   `json:"canReschedule"`
	LatestWindowStartTime string `json:"latestWindowStartTime,omitempty"`
	MaintenanceStatus     string `json:"maintenanceStatus"`
	Type                  string `json:"type"`
	WindowStartTime       string `json:"windowStartTime"`
	WindowEndTime         string `json:"windowEndTime"`
}

// groupMaintenanceJSON is GroupMaintenanceInfo.
type groupMaintenanceJSON struct {
	MaintenanceOngoingCount  int                      `json:"maintenanceOngoingCount,omitempty"`
	MaintenancePendingCount  int                      `json:"maintenancePendingCount,omitempty"`
	SchedulingType           string                   `json:"schedulingType"`
	UpcomingGroupMaintenance *upcomingMaintenanceJSON `json:"upcomingGroupMaintenance,omitempty"`
}

// maintenanceJSON renders the maintenance of some sub-blocks (one, or a
// block's), or nil when none has any. Callers hold w.Mu.
func maintenanceJSON(subs []*cloud.SubBlockState) *groupMaintenanceJSON {
	out := &groupMaintenanceJSON{SchedulingType: "GROUPED"}
	var first *cloud.MaintenanceState
	for _, s := range subs {
		switch s.Maint.Status {
		case cloud.MaintenancePending:
			out.MaintenancePendingCount += cloud.HostsPerSubBlock
		case cloud.MaintenanceOngoing:
			out.MaintenanceOngoingCount += cloud.HostsPerSubBlock
		default:
			continue
		}
		// An ongoing maintenance is reported before a pending one.
		if first == nil || (s.Maint.Status == cloud.MaintenanceOngoing && first.Status != cloud.MaintenanceOngoing) {
			first = &s.Maint
		}
	}
	if first == nil {
		return nil
	}
	out.UpcomingGroupMaintenance = &upcomingMaintenanceJSON{
		CanReschedule:     first.Status == cloud.MaintenancePending,
		MaintenanceStatus: first.Status,
		Type:              "SCHEDULED",
		WindowStartTime:   first.WindowStart.Format(time.RFC3339),
		WindowEndTime:     first.WindowStart.Add(24 * time.Hour).Format(time.RFC3339),
	}
	if first.Status == cloud.MaintenancePending {
		out.UpcomingGroupMaintenance.LatestWindowStartTime = first.WindowStart.Add(7 * 24 * time.Hour).Format(time.RFC3339)
	}
	return out
}

// routeMaintenance adds the maintenance and fault methods to the Compute
// API's routes.
func (w *API) routeMaintenance(handle func(pattern string, h http.HandlerFunc), zone, blocks, subs string) {
	handle("POST "+blocks+"/{block}/performMaintenance", w.performBlockMaintenance)
	handle("POST "+subs+"/{subBlock}/performMaintenance", w.performSubBlockMaintenance)
	handle("POST "+subs+"/{subBlock}/reportFaulty", w.reportSubBlockFaulty)
	handle("POST "+zone+"/instances/{instance}/reportHostAsFaulty", w.reportHostAsFaulty)
}

// Values of ReservationsBlocksPerformMaintenanceRequest.maintenanceScope.
var maintenanceScopes = []string{"ALL", "RUNNING_VMS", "UNUSED_CAPACITY"}

func (w *API) performBlockMaintenance(rw http.ResponseWriter, r *http.Request) {
	res, block := w.requestBlock(rw, r)
	if block == nil {
		return
	}
	body, err := googleapi.ReadBody(rw, r)
	if err != nil {
		googleapi.BadRequest(rw, "Invalid request body: "+err.Error())
		return
	}
	var req struct {
		MaintenanceScope *string `json:"maintenanceScope"`
	}
	if len(body) > 0 {
		if err := json.Unmarshal(body, &req); err != nil {
			googleapi.BadRequest(rw, "Invalid JSON payload received. "+err.Error())
			return
		}
	}
	scope := "ALL"
	if req.MaintenanceScope != nil && *req.MaintenanceScope != "" {
		scope = *req.MaintenanceScope
		if !oneOf(scope, maintenanceScopes) {
			googleapi.BadRequest(rw, invalidField("maintenanceScope", scope, "Must be one of [ALL, RUNNING_VMS, UNUSED_CAPACITY]."))
			return
		}
	}
	target := computeLinkBase + w.reservationPath(res.Name) + "/reservationBlocks/" + block.Name
	w.Mu.Lock()
	var picked []*cloud.SubBlockState
	for _, s := range w.SubBlocksOf(res.Name, block.Name) {
		inUse := s.NodePool != ""
		if s.Maint.Status != cloud.MaintenancePending || (scope == "RUNNING_VMS" && !inUse) || (scope == "UNUSED_CAPACITY" && inUse) {
			continue
		}
		picked = append(picked, s)
	}
	w.Mu.Unlock()
	if len(picked) == 0 {
		googleapi.BadRequest(rw, fmt.Sprintf("There is no pending maintenance in scope %s on reservation block '%s'.", scope, w.reservationPath(res.Name)+"/reservationBlocks/"+block.Name))
		return
	}
	w.writeComputeOperation(rw, w.startMaintenance("performMaintenance", target, picked))
}

func (w *API) performSubBlockMaintenance(rw http.ResponseWriter, r *http.Request) {
	s, path := w.requestSubBlock(rw, r)
	if s == nil {
		return
	}
	w.Mu.Lock()
	status := s.Maint.Status
	w.Mu.Unlock()
	switch status {
	case cloud.MaintenanceOngoing:
		googleapi.BadRequest(rw, fmt.Sprintf("Maintenance is already ongoing on reservation sub-block '%s'.", path))
		return
	case "":
		googleapi.BadRequest(rw, fmt.Sprintf("There is no pending maintenance on reservation sub-block '%s'.", path))
		return
	}
	w.writeComputeOperation(rw, w.startMaintenance("performMaintenance", computeLinkBase+path, []*cloud.SubBlockState{s}))
}

// requestSubBlock finds the sub-block a request names, or answers 404 and
// returns nil; path is the sub-block's resource path.
func (w *API) requestSubBlock(rw http.ResponseWriter, r *http.Request) (*cloud.SubBlockState, string) {
	res, block := w.requestBlock(rw, r)
	if block == nil {
		return nil, ""
	}
	name := r.PathValue("subBlock")
	path := w.reservationPath(res.Name) + "/reservationBlocks/" + block.Name + "/reservationSubBlocks/" + name
	w.Mu.Lock()
	s := w.FindSubBlock(res.Name, block.Name, name)
	w.Mu.Unlock()
	if s == nil {
		googleapi.NotFound(rw, path)
		return nil, ""
	}
	return s, path
}

// startMaintenance starts the operation that moves the sub-blocks'
// maintenance to ONGOING (their hosts UNHEALTHY), and ends it after
// Faults.MaintenanceMs (their hosts HEALTHY). The operation is done once
// the maintenance is ongoing.
func (w *API) startMaintenance(opType, target string, subs []*cloud.SubBlockState) *cloud.Operation {
	return w.StartOperation("compute", opType, "zones/"+w.Inv.Zone, target, func() *cloud.OpError {
		w.Mu.Lock()
		length := defaultMaintenanceTime
		if w.Faults.MaintenanceMs > 0 {
			length = time.Duration(w.Faults.MaintenanceMs) * time.Millisecond
		}
		for _, s := range subs {
			s.Maint = cloud.MaintenanceState{Status: cloud.MaintenanceOngoing, WindowStart: time.Now().UTC().Truncate(time.Second), FaultGen: s.Maint.FaultGen}
			for h := range s.Hosts {
				s.Hosts[h] = cloud.HostUnhealthy
			}
		}
		w.Mu.Unlock()
		if err := w.AfterHostChange(subs); err != nil {
			return &cloud.OpError{Code: http.StatusInternalServerError, Message: err.Error()}
		}
		w.After(cloud.Delay{Kind: cloud.DelayMaintenance, Of: target, For: length}, func() {
			w.Mu.Lock()
			for _, s := range subs {
				s.Maint = cloud.MaintenanceState{FaultGen: s.Maint.FaultGen}
				for h := range s.Hosts {
					s.Hosts[h] = cloud.HostHealthy
				}
			}
			w.Mu.Unlock()
			_ = w.AfterHostChange(subs)
		})
		return nil
	})
}
