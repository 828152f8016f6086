package computeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	computev1 "google.golang.org/api/compute/v1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// The reservation slots of a sub-block, as Compute v1 serves them:
//
//	GET  zones/Z/reservations/R/reservationBlocks/B/reservationSubBlocks/S/reservationSlots            list
//	GET  .../reservationSlots/N                 get (answers {resource: slot})
//	POST .../reservationSlots/N                 update (body ReservationSlot; answers an Operation)
//	POST .../reservationSlots/N/getHealth       getHealth (answers an Operation)
//	POST .../reservationSlots/N/getVersion      getVersion (body {sbomSelections}; answers an Operation)
//
// A sub-block has one slot per host (cloud.SlotName), named by name or by
// its numeric ID. A slot's physicalTopology places its host (the node
// label cloud.google.com/gce-topology-host carries the same host ID), its
// status names the VM running on it, and its state is ACTIVE or, while its
// host is unhealthy or in maintenance, UNAVAILABLE. TPU hosts have no RDMA
// network, so status.rdmaIpAddresses is empty. The sandbox's reservations
// serve their own project only: an update may set shareSettings to LOCAL
// (or leave it empty, to inherit), nothing else.

type slotTopologyJSON struct {
	Cluster  string `json:"cluster"`
	Block    string `json:"block"`
	SubBlock string `json:"subBlock"`
	Host     string `json:"host"`
}

type slotStatusJSON struct {
	PhysicalTopology slotTopologyJSON `json:"physicalTopology"`
	RunningInstances []string         `json:"runningInstances,omitempty"`
}

type reservationSlotJSON struct {
	zonalResourceJSON
	State            string           `json:"state"`
	PhysicalTopology slotTopologyJSON `json:"physicalTopology"`
	Status           slotStatusJSON   `json:"status"`
	ShareSettings    shareJSON        `json:"shareSettings"`
}

// routeSlots adds the reservation slot methods to the Compute API's routes.
func (w *API) routeSlots(handle func(pattern string, h http.HandlerFunc), subs string) {
	slots := subs + "/{subBlock}/reservationSlots"
	handle("GET "+slots, w.listReservationSlots)
	handle("GET "+slots+"/{slot}", w.getReservationSlot)
	handle("POST "+slots+"/{slot}", w.updateReservationSlot)
	handle("POST "+slots+"/{slot}/getHealth", w.slotOperation("getHealth"))
	handle("POST "+slots+"/{slot}/getVersion", w.slotOperation("getVersion"))
}

func (w *API) slotsPath(s *cloud.SubBlockState) string {
	return w.reservationPath(s.Reservation) + "/reservationBlocks/" + s.Block + "/reservationSubBlocks/" + s.Name + "/reservationSlots"
}

func slotID(s *cloud.SubBlockState, h int) string {
	return computeID("slot", s.Reservation, s.Block, s.Name, cloud.SlotName(h))
}

// slotJSON renders the slot of host h of s. Callers hold w.Mu.
func (w *API) slotJSON(s *cloud.SubBlockState, h int) reservationSlotJSON {
	topo := slotTopologyJSON{
		Cluster:  cloud.ClusterTopologyID(s.Reservation),
		Block:    cloud.BlockTopologyID(s),
		SubBlock: cloud.SubBlockTopologyID(s),
		Host:     cloud.HostTopologyID(s, h),
	}
	out := reservationSlotJSON{
		zonalResourceJSON: w.zonalResource("compute#reservationSlot", w.slotsPath(s), cloud.SlotName(h), slotID(s, h)),
		State:             cloud.SlotState(s, h),
		PhysicalTopology:  topo,
		Status:            slotStatusJSON{PhysicalTopology: topo},
		ShareSettings:     shareJSON{ShareType: "LOCAL"},
	}
	if vm := w.SlotInstance(s, h); vm != "" {
		out.Status.RunningInstances = []string{w.zoneLink() + "/instances/" + vm}
	}
	return out
}

func (w *API) listReservationSlots(rw http.ResponseWriter, r *http.Request) {
	s, _ := w.requestSubBlock(rw, r)
	if s == nil {
		return
	}
	w.Mu.Lock()
	items := make([]reservationSlotJSON, 0, cloud.HostsPerSubBlock)
	for h := range cloud.HostsPerSubBlock {
		items = append(items, w.slotJSON(s, h))
	}
	w.Mu.Unlock()
	writeComputeList(rw, r, "compute#reservationSlot", computeLinkBase+w.slotsPath(s), items)
}

// requestSlot finds the sub-block and host of the slot a request names
// (by name or ID), or answers 404 and returns nil.
func (w *API) requestSlot(rw http.ResponseWriter, r *http.Request) (*cloud.SubBlockState, int) {
	s, _ := w.requestSubBlock(rw, r)
	if s == nil {
		return nil, 0
	}
	name := r.PathValue("slot")
	if h := cloud.SlotIndex(name); h >= 0 {
		return s, h
	}
	for h := range cloud.HostsPerSubBlock {
		if slotID(s, h) == name {
			return s, h
		}
	}
	googleapi.NotFound(rw, w.slotsPath(s)+"/"+name)
	return nil, 0
}

func (w *API) getReservationSlot(rw http.ResponseWriter, r *http.Request) {
	s, h := w.requestSlot(rw, r)
	if s == nil {
		return
	}
	w.Mu.Lock()
	out := w.slotJSON(s, h)
	w.Mu.Unlock()
	googleapi.WriteJSON(rw, http.StatusOK, map[string]any{"resource": out})
}

// reservationSlotUpdate is the body of reservationSlots.update: only
// shareSettings can change; the output-only fields a client sends back
// from a get are ignored.
var reservationSlotUpdate = googleapi.BodySpec{
	Method: "compute reservationSlots.update", Type: reflect.TypeFor[computev1.ReservationSlot](), Root: "reservation_slot_resource",
	Emulated: []string{"shareSettings", "kind", "id", "creationTimestamp", "name", "selfLink", "selfLinkWithId", "zone", "state",
		"physicalTopology", "status"},
}

func (w *API) updateReservationSlot(rw http.ResponseWriter, r *http.Request) {
	s, h := w.requestSlot(rw, r)
	if s == nil {
		return
	}
	if mask := r.URL.Query().Get("updateMask"); mask != "" {
		for _, f := range strings.Split(mask, ",") {
			if f != "shareSettings" && f != "share_settings" {
				googleapi.BadRequest(rw, invalidField("updateMask", mask, "Only shareSettings of a reservation slot can be updated."))
				return
			}
		}
	}
	body, ok := googleapi.AcceptBody(rw, r, reservationSlotUpdate)
	if !ok {
		return
	}
	var req computev1.ReservationSlot
	if err := decodeBody(body, &req); err != nil {
		googleapi.BadRequest(rw, "Invalid JSON payload received. "+err.Error())
		return
	}
	if ss := req.ShareSettings; ss != nil && ss.ShareType != "" && ss.ShareType != "LOCAL" {
		googleapi.BadRequest(rw, invalidField("shareSettings.shareType", ss.ShareType,
			"The sandbox's reservations serve their own project only: use LOCAL, or leave shareSettings empty to inherit the reservation's."))
		return
	}
	w.Mu.Lock()
	target := w.slotJSON(s, h).SelfLink
	w.Mu.Unlock()
	w.writeComputeOperation(rw, w.StartOperation("compute", "update", "zones/"+w.Inv.Zone, target, func() *cloud.OpError { return nil }))
}

// sbomSelections are the values of ReservationSlotsGetVersionRequest.sbomSelections.
var sbomSelections = []string{"SBOM_SELECTION_CURRENT", "SBOM_SELECTION_TARGET"}

// slotOperation answers getHealth and getVersion: an operation on the
// slot, done at once. The sandbox has no health report or SBOM of its own
// to attach to it.
func (w *API) slotOperation(opType string) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		s, h := w.requestSlot(rw, r)
		if s == nil {
			return
		}
		body, err := googleapi.ReadBody(rw, r)
		if err != nil {
			googleapi.BadRequest(rw, "Invalid request body: "+err.Error())
			return
		}
		if opType == "getVersion" {
			var req computev1.ReservationSlotsGetVersionRequest
			if len(strings.TrimSpace(string(body))) > 0 {
				if err := decodeBody(body, &req); err != nil {
					googleapi.BadRequest(rw, "Invalid JSON payload received. "+err.Error())
					return
				}
			}
			for i, sel := range req.SbomSelections {
				if !oneOf(sel, sbomSelections) {
					googleapi.BadRequest(rw, invalidField(fmt.Sprintf("sbomSelections[%d]", i), sel, "Must be one of ["+strings.Join(sbomSelections, ", ")+"]."))
					return
				}
			}
		}
		w.Mu.Lock()
		target := w.slotJSON(s, h).SelfLink
		w.Mu.Unlock()
		w.writeComputeOperation(rw, w.StartOperation("compute", opType, "zones/"+w.Inv.Zone, target, func() *cloud.OpError { return nil }))
	}
}

// decodeBody decodes a request body into a Go client type, refusing a
// field the type does not define.
func decodeBody(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
