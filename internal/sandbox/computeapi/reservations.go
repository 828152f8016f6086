package computeapi

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
)

// allocationJSON is Reservation.specificReservation (int64 counts are
// strings in JSON).
type allocationJSON struct {
	Count              string `json:"count"`
	InUseCount         string `json:"inUseCount"`
	AssuredCount       string `json:"assuredCount"`
	InstanceProperties struct {
		MachineType string `json:"machineType"`
	} `json:"instanceProperties"`
}

type reservationJSON struct {
	Kind                        string         `json:"kind"`
	ID                          string         `json:"id"`
	CreationTimestamp           string         `json:"creationTimestamp"`
	Name                        string         `json:"name"`
	SelfLink                    string         `json:"selfLink"`
	ShareSettings               shareJSON      `json:"shareSettings"`
	ResourceStatus              map[string]any `json:"resourceStatus"`
	SatisfiesPzs                bool           `json:"satisfiesPzs"`
	Zone                        string         `json:"zone"`
	Status                      string         `json:"status"`
	SpecificReservationRequired bool           `json:"specificReservationRequired"`
	DeploymentType              string         `json:"deploymentType"`
	SpecificReservation         allocationJSON `json:"specificReservation"`
}

// reservationJSON renders a reservation. Callers hold w.Mu.
func (w *API) reservationJSON(res *cloud.Reservation) reservationJSON {
	var subs []*cloud.SubBlockState
	for _, b := range res.Blocks {
		subs = append(subs, w.SubBlocksOf(res.Name, b.Name)...)
	}
	inUse, _ := inUseHosts(subs)
	out := reservationJSON{
		Kind:                        "compute#reservation",
		ID:                          computeID("reservation", res.Name),
		CreationTimestamp:           w.Created.Format(computeTimeFormat),
		Name:                        res.Name,
		SelfLink:                    computeLinkBase + w.reservationPath(res.Name),
		ShareSettings:               shareJSON{ShareType: "LOCAL"},
		ResourceStatus:              map[string]any{},
		Zone:                        w.zoneLink(),
		Status:                      "READY",
		SpecificReservationRequired: true,
		DeploymentType:              "DENSE",
		SpecificReservation: allocationJSON{
			Count:        strconv.Itoa(len(subs) * cloud.HostsPerSubBlock),
			InUseCount:   strconv.Itoa(inUse),
			AssuredCount: strconv.Itoa(len(subs) * cloud.HostsPerSubBlock),
		},
	}
	out.SpecificReservation.InstanceProperties.MachineType = cloud.MachineType
	return out
}

// shareJSON is Reservation.shareSettings: the sandbox's reservations serve
// their own project only.
type shareJSON struct {
	ShareType string `json:"shareType"`
}

type blockHealthJSON struct {
	HealthStatus          string `json:"healthStatus"`
	HealthySubBlockCount  int    `json:"healthySubBlockCount"`
	DegradedSubBlockCount int    `json:"degradedSubBlockCount"`
}

type blockTopologyJSON struct {
	Cluster string `json:"cluster"`
	Block   string `json:"block"`
}

type reservationBlockJSON struct {
	zonalResourceJSON
	capacityJSON
	ReservationSubBlockCount      int               `json:"reservationSubBlockCount"`
	ReservationSubBlockInUseCount int               `json:"reservationSubBlockInUseCount"`
	PhysicalTopology              blockTopologyJSON `json:"physicalTopology"`
	HealthInfo                    blockHealthJSON   `json:"healthInfo"`
	// ReservationMaintenance is the block's maintenance (maintenance.go).
	ReservationMaintenance *groupMaintenanceJSON `json:"reservationMaintenance,omitempty"`
}

type subBlockHealthJSON struct {
	HealthStatus      string `json:"healthStatus"`
	HealthyHostCount  int    `json:"healthyHostCount"`
	DegradedHostCount int    `json:"degradedHostCount"`
}

type subBlockTopologyJSON struct {
	Cluster  string `json:"cluster"`
	Block    string `json:"block"`
	SubBlock string `json:"subBlock"`
}

// topologyStateJSON is one of AcceleratorTopologyInfo.infoPerTopologyStates.
type topologyStateJSON struct {
	State string `json:"state"`
	Count int    `json:"count"`
}

type topologyInfoJSON struct {
	AcceleratorTopology   string              `json:"acceleratorTopology"`
	InfoPerTopologyStates []topologyStateJSON `json:"infoPerTopologyStates"`
}

// topologiesInfoJSON is ReservationSubBlock.acceleratorTopologiesInfo:
// the sub-block is one 4x4x4 topology, in one state
// (cloud.TopologyState).
type topologiesInfoJSON struct {
	AcceleratorTopologyInfos []topologyInfoJSON `json:"acceleratorTopologyInfos"`
}

type reservationSubBlockJSON struct {
	zonalResourceJSON
	capacityJSON
	PhysicalTopology subBlockTopologyJSON `json:"physicalTopology"`
	// AcceleratorTopologiesInfo is the state of the sub-block's 4x4x4
	// topology.
	AcceleratorTopologiesInfo topologiesInfoJSON `json:"acceleratorTopologiesInfo"`
	HealthInfo                subBlockHealthJSON `json:"healthInfo"`
	// ReservationSubBlockMaintenance is the sub-block's maintenance
	// (maintenance.go).
	ReservationSubBlockMaintenance *groupMaintenanceJSON `json:"reservationSubBlockMaintenance,omitempty"`
}

func (w *API) findReservation(name string) *cloud.Reservation {
	for i := range w.Inv.Reservations {
		if w.Inv.Reservations[i].Name == name {
			return &w.Inv.Reservations[i]
		}
	}
	return nil
}

func (w *API) reservationPath(name string) string {
	return fmt.Sprintf("projects/%s/zones/%s/reservations/%s", w.Inv.Project, w.Inv.Zone, name)
}

// inUseHosts counts the hosts of occupied sub-blocks. Callers hold w.Mu.
func inUseHosts(subs []*cloud.SubBlockState) (hosts, subBlocks int) {
	for _, s := range subs {
		if s.NodePool != "" {
			hosts += cloud.HostsPerSubBlock
			subBlocks++
		}
	}
	return hosts, subBlocks
}

// blockJSON renders a reservation block. Its health sums its sub-blocks':
// HEALTHY when all are healthy, UNHEALTHY when all are unhealthy, else
// DEGRADED; degradedSubBlockCount counts every sub-block that is not
// healthy (the API has no separate unhealthy count). Callers hold w.Mu.
func (w *API) blockJSON(res string, b *cloud.Block) reservationBlockJSON {
	subs := w.SubBlocksOf(res, b.Name)
	inUse, subsInUse := inUseHosts(subs)
	health := blockHealthJSON{HealthStatus: "HEALTHY"}
	unhealthy := 0
	for _, s := range subs {
		switch s.Health() {
		case cloud.HostHealthy:
			health.HealthySubBlockCount++
		case cloud.HostUnhealthy:
			unhealthy++
			health.DegradedSubBlockCount++
		default:
			health.DegradedSubBlockCount++
		}
	}
	switch {
	case len(subs) > 0 && unhealthy == len(subs):
		health.HealthStatus = "UNHEALTHY"
	case health.DegradedSubBlockCount > 0:
		health.HealthStatus = "DEGRADED"
	}
	key := &cloud.SubBlockState{Reservation: res, Block: b.Name}
	running := 0
	for _, s := range subs {
		running += w.RunningHosts(s)
	}
	return reservationBlockJSON{
		zonalResourceJSON:             w.zonalResource("compute#reservationBlock", w.reservationPath(res)+"/reservationBlocks", b.Name, computeID("block", res, b.Name)),
		capacityJSON:                  readyCapacity(len(subs)*cloud.HostsPerSubBlock, inUse, running),
		ReservationSubBlockCount:      len(subs),
		ReservationSubBlockInUseCount: subsInUse,
		PhysicalTopology:              blockTopologyJSON{Cluster: cloud.ClusterTopologyID(res), Block: cloud.BlockTopologyID(key)},
		HealthInfo:                    health,
		ReservationMaintenance:        maintenanceJSON(subs),
	}
}

// subBlockJSON renders a sub-block. degradedHostCount counts every host
// that is not healthy, so that healthy + degraded is the host count;
// healthStatus tells DEGRADED from UNHEALTHY. Callers hold w.Mu.
func (w *API) subBlockJSON(s *cloud.SubBlockState) reservationSubBlockJSON {
	healthy, degraded, unhealthy := s.Count()
	inUse := 0
	if s.NodePool != "" {
		inUse = cloud.HostsPerSubBlock
	}
	return reservationSubBlockJSON{
		zonalResourceJSON: w.zonalResource("compute#reservationSubBlock", w.reservationPath(s.Reservation)+"/reservationBlocks/"+s.Block+"/reservationSubBlocks",
			s.Name, computeID("subblock", s.Reservation, s.Block, s.Name)),
		capacityJSON: readyCapacity(cloud.HostsPerSubBlock, inUse, w.RunningHosts(s)),
		AcceleratorTopologiesInfo: topologiesInfoJSON{AcceleratorTopologyInfos: []topologyInfoJSON{{
			AcceleratorTopology:   slicerules.SubBlockShape,
			InfoPerTopologyStates: []topologyStateJSON{{State: cloud.TopologyState(s), Count: 1}},
		}}},
		PhysicalTopology: subBlockTopologyJSON{
			Cluster:  cloud.ClusterTopologyID(s.Reservation),
			Block:    cloud.BlockTopologyID(s),
			SubBlock: cloud.SubBlockTopologyID(s),
		},
		HealthInfo:                     subBlockHealthJSON{HealthStatus: s.Health(), HealthyHostCount: healthy, DegradedHostCount: degraded + unhealthy},
		ReservationSubBlockMaintenance: maintenanceJSON([]*cloud.SubBlockState{s}),
	}
}

func (w *API) listReservations(rw http.ResponseWriter, r *http.Request) {
	writeComputeList(rw, r, "compute#reservationList", w.zoneLink()+"/reservations", w.zoneReservations())
}

// zoneReservations renders the reservations of the sandbox's zone, in
// inventory order.
func (w *API) zoneReservations() []reservationJSON {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	items := make([]reservationJSON, 0, len(w.Inv.Reservations))
	for i := range w.Inv.Reservations {
		items = append(items, w.reservationJSON(&w.Inv.Reservations[i]))
	}
	return items
}

func (w *API) getReservation(rw http.ResponseWriter, r *http.Request) {
	name := r.PathValue("reservation")
	res := w.findReservation(name)
	if res == nil {
		googleapi.NotFound(rw, w.reservationPath(name))
		return
	}
	w.Mu.Lock()
	out := w.reservationJSON(res)
	w.Mu.Unlock()
	googleapi.WriteJSON(rw, http.StatusOK, out)
}

// requestBlock finds the reservation and block a request names, or
// answers 404 and returns nil.
func (w *API) requestBlock(rw http.ResponseWriter, r *http.Request) (*cloud.Reservation, *cloud.Block) {
	name := r.PathValue("reservation")
	res := w.findReservation(name)
	if res == nil {
		googleapi.NotFound(rw, w.reservationPath(name))
		return nil, nil
	}
	if !strings.Contains(r.Pattern, "{block}") {
		return res, nil
	}
	block := r.PathValue("block")
	for i := range res.Blocks {
		if res.Blocks[i].Name == block {
			return res, &res.Blocks[i]
		}
	}
	googleapi.NotFound(rw, w.reservationPath(name)+"/reservationBlocks/"+block)
	return nil, nil
}

func (w *API) listReservationBlocks(rw http.ResponseWriter, r *http.Request) {
	res, _ := w.requestBlock(rw, r)
	if res == nil {
		return
	}
	w.Mu.Lock()
	items := make([]reservationBlockJSON, 0, len(res.Blocks))
	for i := range res.Blocks {
		items = append(items, w.blockJSON(res.Name, &res.Blocks[i]))
	}
	w.Mu.Unlock()
	writeComputeList(rw, r, "compute#reservationBlock", computeLinkBase+w.reservationPath(res.Name)+"/reservationBlocks", items)
}

func (w *API) getReservationBlock(rw http.ResponseWriter, r *http.Request) {
	res, block := w.requestBlock(rw, r)
	if block == nil {
		return
	}
	w.Mu.Lock()
	out := w.blockJSON(res.Name, block)
	w.Mu.Unlock()
	googleapi.WriteJSON(rw, http.StatusOK, map[string]any{"resource": out})
}

func (w *API) listReservationSubBlocks(rw http.ResponseWriter, r *http.Request) {
	res, block := w.requestBlock(rw, r)
	if block == nil {
		return
	}
	w.Mu.Lock()
	subs := w.SubBlocksOf(res.Name, block.Name)
	items := make([]reservationSubBlockJSON, 0, len(subs))
	for _, s := range subs {
		items = append(items, w.subBlockJSON(s))
	}
	w.Mu.Unlock()
	writeComputeList(rw, r, "compute#reservationSubBlock",
		computeLinkBase+w.reservationPath(res.Name)+"/reservationBlocks/"+block.Name+"/reservationSubBlocks", items)
}

func (w *API) getReservationSubBlock(rw http.ResponseWriter, r *http.Request) {
	res, block := w.requestBlock(rw, r)
	if block == nil {
		return
	}
	name := r.PathValue("subBlock")
	w.Mu.Lock()
	s := w.FindSubBlock(res.Name, block.Name, name)
	var out reservationSubBlockJSON
	if s != nil {
		out = w.subBlockJSON(s)
	}
	w.Mu.Unlock()
	if s == nil {
		googleapi.NotFound(rw, w.reservationPath(res.Name)+"/reservationBlocks/"+block.Name+"/reservationSubBlocks/"+name)
		return
	}
	googleapi.WriteJSON(rw, http.StatusOK, map[string]any{"resource": out})
}
