package sandbox

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// SetMaintenance announces maintenance on a sub-block (status PENDING) or
// withdraws it (status ""), as Compute Engine does about 90 days ahead.
// Ongoing maintenance cannot be changed (cloud.World.SetMaintenance).
func (sb *Sandbox) SetMaintenance(ctx context.Context, reservation, block, subBlock, status string) error {
	return sb.world.SetMaintenance(ctx, reservation, block, subBlock, status)
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
