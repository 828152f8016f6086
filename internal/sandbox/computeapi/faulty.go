package computeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// Reports of faulty hardware, as Compute Engine takes them:
//
//	POST zones/Z/reservations/R/reservationBlocks/B/reservationSubBlocks/S/reportFaulty
//	     body ReservationSubBlocksReportFaultyRequest
//	     {disruptionSchedule, failureComponent, faultReasons[{behavior, description}]}
//	POST zones/Z/instances/I/reportHostAsFaulty
//	     body InstancesReportHostAsFaultyRequest
//	     {disruptionSchedule, faultReasons[{behavior, description}]}
//
// Both answer a zonal Operation. When it is done the reported hosts (all
// of the sub-block's, or the instance's) are UNHEALTHY, with their nodes
// NotReady and partitions UNHEALTHY, until they are repaired after
// Faults.FaultyRepairMs. An instance is a node of a sandbox node pool (GKE
// names nodes after their VMs).

// The values the reportFaulty request fields take.
var (
	subBlockFailureComponents = []string{"MULTIPLE_FAULTY_HOSTS", "NVLINK_SWITCH"}
	subBlockFaultBehaviors    = []string{"GPU_ERROR", "NVSWITCH_FAULT_CONTROLLER_ERROR", "NVSWITCH_FAULT_DEGRADED_BANDWIDTH",
		"NVSWITCH_FAULT_SWITCH_ERROR", "PERFORMANCE", "SILENT_DATA_CORRUPTION", "SWITCH_FAILURE"}
	hostFaultBehaviors  = []string{"CHIP_ERROR", "PERFORMANCE", "SILENT_DATA_CORRUPTION", "UNRECOVERABLE_GPU_ERROR"}
	disruptionSchedules = []string{"IMMEDIATE"}
)

// faultyRequestJSON is either request body.
type faultyRequestJSON struct {
	DisruptionSchedule string `json:"disruptionSchedule"`
	FailureComponent   string `json:"failureComponent"`
	FaultReasons       []struct {
		Behavior    string `json:"behavior"`
		Description string `json:"description"`
	} `json:"faultReasons"`
}

// checkFaultyRequest reads a report's body and checks it: the failure
// component when components is not nil, the disruption schedule and every
// fault reason's behavior. It returns a message for a 400, or "".
func checkFaultyRequest(body []byte, components, behaviors []string) string {
	_, msg := parseFaultyRequest(body, components, behaviors)
	return msg
}

func parseFaultyRequest(body []byte, components, behaviors []string) (req faultyRequestJSON, msg string) {
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, "Invalid JSON payload received. " + err.Error()
	}
	list := func(v []string) string { return "Must be one of [" + strings.Join(v, ", ") + "]." }
	if components != nil {
		switch {
		case req.FailureComponent == "":
			return req, "Required field 'resource.failureComponent' not specified"
		case !oneOf(req.FailureComponent, components):
			return req, invalidField("failureComponent", req.FailureComponent, list(components))
		}
	}
	switch {
	case req.DisruptionSchedule == "":
		return req, "Required field 'resource.disruptionSchedule' not specified"
	case !oneOf(req.DisruptionSchedule, disruptionSchedules):
		return req, invalidField("disruptionSchedule", req.DisruptionSchedule, "Only IMMEDIATE is supported.")
	}
	if len(req.FaultReasons) == 0 {
		return req, "Required field 'resource.faultReasons' not specified"
	}
	for i, fr := range req.FaultReasons {
		if !oneOf(fr.Behavior, behaviors) {
			return req, invalidField(fmt.Sprintf("faultReasons[%d].behavior", i), fr.Behavior, list(behaviors))
		}
	}
	return req, ""
}

func (w *API) reportSubBlockFaulty(rw http.ResponseWriter, r *http.Request) {
	s, path := w.requestSubBlock(rw, r)
	if s == nil {
		return
	}
	body, err := googleapi.ReadBody(rw, r)
	if err != nil {
		googleapi.BadRequest(rw, "Invalid request body: "+err.Error())
		return
	}
	if msg := checkFaultyRequest(body, subBlockFailureComponents, subBlockFaultBehaviors); msg != "" {
		googleapi.BadRequest(rw, msg)
		return
	}
	hosts := make([]int, cloud.HostsPerSubBlock)
	for h := range hosts {
		hosts[h] = h
	}
	w.writeComputeOperation(rw, w.startFault("reportFaulty", computeLinkBase+path, s, hosts))
}

func (w *API) reportHostAsFaulty(rw http.ResponseWriter, r *http.Request) {
	name := r.PathValue("instance")
	path := fmt.Sprintf("projects/%s/zones/%s/instances/%s", w.Inv.Project, w.Inv.Zone, name)
	s, host := w.instanceHost(name)
	if s == nil {
		googleapi.NotFound(rw, path)
		return
	}
	body, err := googleapi.ReadBody(rw, r)
	if err != nil {
		googleapi.BadRequest(rw, "Invalid request body: "+err.Error())
		return
	}
	if msg := checkFaultyRequest(body, nil, hostFaultBehaviors); msg != "" {
		googleapi.BadRequest(rw, msg)
		return
	}
	w.writeComputeOperation(rw, w.startFault("reportHostAsFaulty", computeLinkBase+path, s, []int{host}))
}

// instanceHost finds the sub-block and host of the VM named name: the
// node of a sandbox node pool of that name.
func (w *API) instanceHost(name string) (*cloud.SubBlockState, int) {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	for poolName, p := range w.NodePools {
		if p.SubBlock == nil {
			continue
		}
		for h := range cloud.HostsPerSubBlock {
			if w.NodeName(poolName, h) == name {
				return p.SubBlock, h
			}
		}
	}
	return nil, 0
}

// startFault starts the operation that makes the hosts of s UNHEALTHY,
// and repairs them (HEALTHY) after Faults.FaultyRepairMs unless a later
// fault or maintenance took them over.
func (w *API) startFault(opType, target string, s *cloud.SubBlockState, hosts []int) *cloud.Operation {
	return w.StartOperation("compute", opType, "zones/"+w.Inv.Zone, target, func() *cloud.OpError {
		w.Mu.Lock()
		for _, h := range hosts {
			s.Hosts[h] = cloud.HostUnhealthy
		}
		s.Maint.FaultGen++
		gen := s.Maint.FaultGen
		repair := defaultFaultyRepair
		if w.Faults.FaultyRepairMs != 0 {
			repair = time.Duration(w.Faults.FaultyRepairMs) * time.Millisecond
		}
		w.Mu.Unlock()
		if err := w.AfterHostChange([]*cloud.SubBlockState{s}); err != nil {
			return &cloud.OpError{Code: http.StatusInternalServerError, Message: err.Error()}
		}
		if repair < 0 {
			return nil
		}
		w.After(cloud.Delay{Kind: cloud.DelayRepair, Of: s.Reservation + "/" + s.Block + "/" + s.Name, For: repair}, func() {
			w.Mu.Lock()
			if s.Maint.FaultGen != gen || s.Maint.Status == cloud.MaintenanceOngoing {
				w.Mu.Unlock()
				return
			}
			for _, h := range hosts {
				s.Hosts[h] = cloud.HostHealthy
			}
			w.Mu.Unlock()
			_ = w.AfterHostChange([]*cloud.SubBlockState{s})
		})
		return nil
	})
}
