package gkeapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dws"
)

// Node pools with queued provisioning (GKE's Dynamic Workload Scheduler):
// created with cloud.NodePool.queuedProvisioning.enabled, as GKE asks, with
// autoscaling on, no reservation (reservationAffinity NO_RESERVATION) and
// no initial node. They start with no node; the emulated DWS (package dws)
// gives them nodes for ProvisioningRequests only.

// queuedSpec is what a create request says about queued provisioning.
type queuedSpec struct {
	QueuedProvisioning *struct {
		Enabled bool `json:"enabled"`
	} `json:"queuedProvisioning"`
	Autoscaling *struct {
		Enabled bool `json:"enabled"`
	} `json:"autoscaling"`
}

// queuedConfig is what the node config of such a pool says (flex-start).
type queuedConfig struct {
	Config struct {
		FlexStart           bool `json:"flexStart"`
		ReservationAffinity *struct {
			ConsumeReservationType string `json:"consumeReservationType"`
		} `json:"reservationAffinity"`
	} `json:"config"`
}

// admitQueuedPool validates and records a pool with queued provisioning.
// Callers hold w.Mu.
func (w *API) admitQueuedPool(spec nodePoolSpec, raw map[string]any) (*cloud.NodePool, int, string) {
	if spec.InitialNodeCount != 0 {
		return nil, http.StatusBadRequest, "nodePool.initialNodeCount must be 0 with queued provisioning: its nodes come from ProvisioningRequests"
	}
	if spec.Autoscaling == nil || !spec.Autoscaling.Enabled {
		return nil, http.StatusBadRequest, "nodePool.autoscaling.enabled must be true with queued provisioning"
	}
	var cfg queuedConfig
	if b, err := json.Marshal(raw); err == nil {
		_ = json.Unmarshal(b, &cfg) // raw was read as a nodePoolSpec already
	}
	if ra := cfg.Config.ReservationAffinity; ra == nil || ra.ConsumeReservationType != "NO_RESERVATION" {
		return nil, http.StatusBadRequest, "nodePool.config.reservationAffinity.consumeReservationType must be NO_RESERVATION with queued provisioning"
	}
	topology := "2x2x1"
	if spec.PlacementPolicy != nil && spec.PlacementPolicy.TPUTopology != "" {
		topology = spec.PlacementPolicy.TPUTopology
	}
	pool := &cloud.NodePool{
		Name: spec.Name, MachineType: spec.Config.MachineType, Locations: []string{w.Inv.Zone},
		Labels: spec.Config.Labels, Raw: raw, Status: "PROVISIONING", Created: time.Now(), Queued: true,
	}
	w.NodePools[pool.Name] = pool
	if w.DWS != nil {
		w.DWS.Set(dws.Pool{Name: pool.Name, MachineType: pool.MachineType, Accelerator: "tpu7x", Topology: topology,
			ChipsPerNode: 4, Zone: w.Inv.Zone, FlexStart: cfg.Config.FlexStart})
	}
	return pool, 0, ""
}

// forgetQueuedPool tells the emulated DWS a deleted pool is gone.
// Callers hold w.Mu.
func (w *API) forgetQueuedPool(pool *cloud.NodePool) {
	if pool.Queued && w.DWS != nil {
		w.DWS.Delete(pool.Name)
	}
}
