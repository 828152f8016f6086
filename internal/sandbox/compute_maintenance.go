package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
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
func maintenanceJSON(subs []*subBlockState) *groupMaintenanceJSON {
	out := &groupMaintenanceJSON{SchedulingType: "GROUPED"}
	var first *cloud.MaintenanceState
	for _, s := range subs {
		switch s.Maint.Status {
		case MaintenancePending:
			out.MaintenancePendingCount += HostsPerSubBlock
		case MaintenanceOngoing:
			out.MaintenanceOngoingCount += HostsPerSubBlock
		default:
			continue
		}
		// An ongoing maintenance is reported before a pending one.
		if first == nil || (s.Maint.Status == MaintenanceOngoing && first.Status != MaintenanceOngoing) {
			first = &s.Maint
		}
	}
	if first == nil {
		return nil
	}
	out.UpcomingGroupMaintenance = &upcomingMaintenanceJSON{
		CanReschedule:     first.Status == MaintenancePending,
		MaintenanceStatus: first.Status,
		Type:              "SCHEDULED",
		WindowStartTime:   first.WindowStart.Format(time.RFC3339),
		WindowEndTime:     first.WindowStart.Add(24 * time.Hour).Format(time.RFC3339),
	}
	if first.Status == MaintenancePending {
		out.UpcomingGroupMaintenance.LatestWindowStartTime = first.WindowStart.Add(7 * 24 * time.Hour).Format(time.RFC3339)
	}
	return out
}

// routeMaintenance adds the maintenance and fault methods to the Compute
// API's routes.
func (w *world) routeMaintenance(handle func(pattern string, h http.HandlerFunc), zone, blocks, subs string) {
	handle("POST "+blocks+"/{block}/performMaintenance", w.performBlockMaintenance)
	handle("POST "+subs+"/{subBlock}/performMaintenance", w.performSubBlockMaintenance)
	handle("POST "+subs+"/{subBlock}/reportFaulty", w.reportSubBlockFaulty)
	handle("POST "+zone+"/instances/{instance}/reportHostAsFaulty", w.reportHostAsFaulty)
}

// Values of ReservationsBlocksPerformMaintenanceRequest.maintenanceScope.
var maintenanceScopes = []string{"ALL", "RUNNING_VMS", "UNUSED_CAPACITY"}

func (w *world) performBlockMaintenance(rw http.ResponseWriter, r *http.Request) {
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
	var picked []*subBlockState
	for _, s := range w.SubBlocksOf(res.Name, block.Name) {
		inUse := s.NodePool != ""
		if s.Maint.Status != MaintenancePending || (scope == "RUNNING_VMS" && !inUse) || (scope == "UNUSED_CAPACITY" && inUse) {
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

func (w *world) performSubBlockMaintenance(rw http.ResponseWriter, r *http.Request) {
	s, path := w.requestSubBlock(rw, r)
	if s == nil {
		return
	}
	w.Mu.Lock()
	status := s.Maint.Status
	w.Mu.Unlock()
	switch status {
	case MaintenanceOngoing:
		googleapi.BadRequest(rw, fmt.Sprintf("Maintenance is already ongoing on reservation sub-block '%s'.", path))
		return
	case "":
		googleapi.BadRequest(rw, fmt.Sprintf("There is no pending maintenance on reservation sub-block '%s'.", path))
		return
	}
	w.writeComputeOperation(rw, w.startMaintenance("performMaintenance", computeLinkBase+path, []*subBlockState{s}))
}

// requestSubBlock finds the sub-block a request names, or answers 404 and
// returns nil; path is the sub-block's resource path.
func (w *world) requestSubBlock(rw http.ResponseWriter, r *http.Request) (*subBlockState, string) {
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
func (w *world) startMaintenance(opType, target string, subs []*subBlockState) *operation {
	return w.StartOperation("compute", opType, "zones/"+w.Inv.Zone, target, func() *opError {
		w.Mu.Lock()
		length := defaultMaintenanceTime
		if w.Faults.MaintenanceMs > 0 {
			length = time.Duration(w.Faults.MaintenanceMs) * time.Millisecond
		}
		for _, s := range subs {
			s.Maint = cloud.MaintenanceState{Status: MaintenanceOngoing, WindowStart: time.Now().UTC().Truncate(time.Second), FaultGen: s.Maint.FaultGen}
			for h := range s.Hosts {
				s.Hosts[h] = HostUnhealthy
			}
		}
		w.Mu.Unlock()
		if err := w.afterHostChange(subs); err != nil {
			return &opError{Code: http.StatusInternalServerError, Message: err.Error()}
		}
		time.AfterFunc(length, func() {
			w.Mu.Lock()
			for _, s := range subs {
				s.Maint = cloud.MaintenanceState{FaultGen: s.Maint.FaultGen}
				for h := range s.Hosts {
					s.Hosts[h] = HostHealthy
				}
			}
			w.Mu.Unlock()
			_ = w.afterHostChange(subs)
		})
		return nil
	})
}

// afterHostChange makes the nodes of the pools on the sub-blocks follow
// their hosts' health and maintenance, bounded.
func (w *world) afterHostChange(subs []*subBlockState) error {
	ctx, cancel := context.WithTimeout(context.Background(), cloud.NodeReadyTimeout+30*time.Second)
	defer cancel()
	for _, s := range subs {
		w.Mu.Lock()
		pool := w.NodePools[s.NodePool]
		w.Mu.Unlock()
		if pool == nil {
			continue
		}
		if err := w.ReconcileNodes(ctx, pool); err != nil {
			return err
		}
		if err := w.labelMaintenance(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// labelMaintenance puts GKE's maintenance labels on the nodes of the pool
// on the sub-block, or takes them off, as its maintenance says.
func (w *world) labelMaintenance(ctx context.Context, s *subBlockState) error {
	w.Mu.Lock()
	pool, m := s.NodePool, s.Maint
	w.Mu.Unlock()
	if pool == "" {
		return nil
	}
	labels := map[string]any{LabelScheduledMaintenanceTime: nil, LabelActiveNodeMaintenance: nil}
	for k, v := range cloud.MaintenanceLabels(m) {
		labels[k] = v
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": labels}})
	if err != nil {
		return err
	}
	nodes, err := w.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: wellknown.LabelNodePool + "=" + pool})
	if err != nil {
		return err
	}
	for _, n := range nodes.Items {
		if _, err := w.Kube.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fmt.Errorf("labelling node %s for maintenance: %w", n.Name, err)
		}
	}
	return nil
}

// SetMaintenance announces maintenance on a sub-block (status PENDING) or
// withdraws it (status ""), as Compute Engine does about 90 days ahead.
// Ongoing maintenance cannot be changed.
func (sb *Sandbox) SetMaintenance(ctx context.Context, reservation, block, subBlock, status string) error {
	if status != "" && status != MaintenancePending {
		return fmt.Errorf("maintenance %q is not PENDING (or empty to withdraw it)", status)
	}
	w := sb.world
	w.Mu.Lock()
	s := w.FindSubBlock(reservation, block, subBlock)
	switch {
	case s == nil:
		w.Mu.Unlock()
		return fmt.Errorf("sub-block %s/%s/%s is not in the inventory", reservation, block, subBlock)
	case s.Maint.Status == MaintenanceOngoing:
		w.Mu.Unlock()
		return fmt.Errorf("sub-block %s/%s/%s has maintenance ongoing", reservation, block, subBlock)
	}
	gen := s.Maint.FaultGen
	if status == MaintenancePending {
		s.Maint = cloud.PendingMaintenance(time.Now())
	} else {
		s.Maint = cloud.MaintenanceState{}
	}
	s.Maint.FaultGen = gen
	w.Mu.Unlock()
	return w.labelMaintenance(ctx, s)
}

// MaintenanceOf is a sub-block's maintenance status: "", PENDING or ONGOING.
func (sb *Sandbox) MaintenanceOf(reservation, block, subBlock string) string {
	w := sb.world
	w.Mu.Lock()
	defer w.Mu.Unlock()
	if s := w.FindSubBlock(reservation, block, subBlock); s != nil {
		return s.Maint.Status
	}
	return ""
}

// routeMaintenanceControl adds POST /sandbox/maintenance to the control
// endpoint: {"reservation","block","subBlock","status"} with status
// PENDING (announce maintenance) or "" (withdraw it).
func (sb *Sandbox) routeMaintenanceControl(mux *http.ServeMux) {
	mux.HandleFunc("POST /sandbox/maintenance", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Reservation string `json:"reservation"`
			Block       string `json:"block"`
			SubBlock    string `json:"subBlock"`
			Status      string `json:"status"`
		}
		dec := json.NewDecoder(r.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			googleapi.BadRequest(w, "maintenance: "+err.Error())
			return
		}
		if err := sb.SetMaintenance(r.Context(), req.Reservation, req.Block, req.SubBlock, req.Status); err != nil {
			googleapi.BadRequest(w, err.Error())
			return
		}
		googleapi.WriteJSON(w, http.StatusOK, req)
	})
}
