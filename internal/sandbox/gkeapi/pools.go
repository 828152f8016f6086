package gkeapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// Node pool create and delete: admission against the inventory, the
// pool's sub-block, its Nodes.

// createNodePoolRequest is the part of CreateNodePoolRequest the sandbox reads.
type createNodePoolRequest struct {
	NodePool map[string]any `json:"nodePool"`
}

type nodePoolSpec struct {
	Name             string   `json:"name"`
	InitialNodeCount int      `json:"initialNodeCount"`
	Locations        []string `json:"locations"`
	Config           struct {
		MachineType         string            `json:"machineType"`
		Labels              map[string]string `json:"labels"`
		Taints              []nodeTaint       `json:"taints"`
		ReservationAffinity *struct {
			ConsumeReservationType string   `json:"consumeReservationType"`
			Key                    string   `json:"key"`
			Values                 []string `json:"values"`
		} `json:"reservationAffinity"`
	} `json:"config"`
	PlacementPolicy *struct {
		Type        string `json:"type"`
		PolicyName  string `json:"policyName"`
		TPUTopology string `json:"tpuTopology"`
	} `json:"placementPolicy"`
	queuedSpec
}

func (w *API) createNodePool(rw http.ResponseWriter, r *http.Request) {
	body, ok := googleapi.AcceptBody(rw, r, nodePoolCreate[isBeta(r)])
	if !ok {
		return
	}
	var req createNodePoolRequest
	if err := json.Unmarshal(body, &req); err != nil || req.NodePool == nil {
		googleapi.BadRequest(rw, "the request body must be a CreateNodePoolRequest with a cloud.NodePool")
		return
	}
	raw, _ := json.Marshal(req.NodePool)
	var spec nodePoolSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		googleapi.BadRequest(rw, "nodePool: "+err.Error())
		return
	}

	w.Mu.Lock()
	pool, status, msg := w.admitNodePool(spec, req.NodePool)
	w.Mu.Unlock()
	if pool == nil {
		googleapi.WriteError(rw, status, statusName(status), msg, "invalid")
		return
	}

	target := "https://container.googleapis.com/v1/" + w.clusterPath() + "/nodePools/" + pool.Name
	op := w.StartOperationOnFail("container", "CREATE_NODE_POOL", "locations/"+w.Inv.Region, target,
		func() *cloud.OpError { return w.provisionPool(pool) },
		func(*cloud.OpError) {
			w.Mu.Lock()
			pool.Status = "ERROR"
			w.Mu.Unlock()
		})
	w.Mu.Lock()
	pool.Operation = op.Name
	w.Mu.Unlock()
	w.writeContainerOperation(rw, op)
}

// admitNodePool validates a create request against the inventory and, when
// it is admissible, records the pool and reserves its sub-block. Callers
// hold w.Mu.
func (w *API) admitNodePool(spec nodePoolSpec, raw map[string]any) (*cloud.NodePool, int, string) {
	if !poolNameRE.MatchString(spec.Name) {
		return nil, http.StatusBadRequest, fmt.Sprintf("nodePool.name %q must be 1-40 lower-case letters, digits or hyphens, starting with a letter", spec.Name)
	}
	if msg := reservedKeys(spec.Config.Labels, spec.Config.Taints); msg != "" {
		return nil, http.StatusBadRequest, msg
	}
	if _, exists := w.NodePools[spec.Name]; exists {
		return nil, http.StatusConflict, fmt.Sprintf("Already exists: %s/nodePools/%s", w.clusterPath(), spec.Name)
	}
	if spec.Config.MachineType != cloud.MachineType {
		return nil, http.StatusBadRequest, fmt.Sprintf("nodePool.config.machineType %q: the sandbox emulates dynamic slicing, which needs %q", spec.Config.MachineType, cloud.MachineType)
	}
	if spec.QueuedProvisioning != nil && spec.QueuedProvisioning.Enabled {
		return w.admitQueuedPool(spec, raw)
	}
	if spec.InitialNodeCount < 1 || spec.InitialNodeCount > cloud.HostsPerSubBlock {
		return nil, http.StatusBadRequest, fmt.Sprintf("nodePool.initialNodeCount %d: a sub-block node pool has 1 to %d nodes", spec.InitialNodeCount, cloud.HostsPerSubBlock)
	}
	for _, l := range spec.Locations {
		if l != w.Inv.Zone {
			return nil, http.StatusBadRequest, fmt.Sprintf("nodePool.locations: %q is not the reservation's zone %q", l, w.Inv.Zone)
		}
	}
	if spec.PlacementPolicy == nil || spec.PlacementPolicy.PolicyName == "" {
		return nil, http.StatusBadRequest, "nodePool.placementPolicy.policyName is required: a TPU7x node pool is placed by a workload policy"
	}
	if spec.PlacementPolicy.Type != "" {
		return nil, http.StatusBadRequest, fmt.Sprintf("nodePool.placementPolicy.type %q cannot be set together with a workload policy for tpu7x", spec.PlacementPolicy.Type)
	}
	policyName := spec.PlacementPolicy.PolicyName[strings.LastIndex(spec.PlacementPolicy.PolicyName, "/")+1:]
	policy, ok := w.Policies[w.Inv.Region+"/"+policyName]
	if !ok {
		return nil, http.StatusBadRequest, fmt.Sprintf("workload policy %q was not found in projects/%s/regions/%s", policyName, w.Inv.Project, w.Inv.Region)
	}
	if policy.AcceleratorTopologyMode != "PROVISION_ONLY" || policy.AcceleratorTopology != "4x4x4" {
		return nil, http.StatusBadRequest, fmt.Sprintf("workload policy %q has accelerator topology %q and mode %q; dynamic slicing needs 4x4x4 and PROVISION_ONLY",
			policyName, policy.AcceleratorTopology, policy.AcceleratorTopologyMode)
	}
	ra := spec.Config.ReservationAffinity
	if ra == nil || ra.ConsumeReservationType != "SPECIFIC_RESERVATION" || ra.Key != "compute.googleapis.com/reservation-name" || len(ra.Values) != 1 {
		return nil, http.StatusBadRequest, "nodePool.config.reservationAffinity must be SPECIFIC_RESERVATION with key compute.googleapis.com/reservation-name and one value, the reservation block or sub-block path"
	}
	sub, status, msg := w.resolveReservationPath(ra.Values[0])
	if sub == nil {
		return nil, status, msg
	}
	pool := &cloud.NodePool{
		Name:            spec.Name,
		MachineType:     spec.Config.MachineType,
		PolicyName:      policyName,
		ReservationPath: ra.Values[0],
		NodeCount:       spec.InitialNodeCount,
		Locations:       []string{w.Inv.Zone},
		Labels:          spec.Config.Labels,
		Raw:             raw,
		SubBlock:        sub,
		Status:          "PROVISIONING",
		Created:         time.Now(),
	}
	sub.NodePool = pool.Name
	w.NodePools[pool.Name] = pool
	return pool, 0, ""
}

// resolveReservationPath finds the sub-block a reservation path targets:
// the named sub-block, or the first free one with a healthy host in a
// block. Callers hold w.Mu.
func (w *API) resolveReservationPath(path string) (*cloud.SubBlockState, int, string) {
	parts := strings.Split(path, "/")
	if len(parts) != 6 && len(parts) != 8 || parts[0] != "projects" || parts[2] != "reservations" || parts[4] != "reservationBlocks" ||
		(len(parts) == 8 && parts[6] != "reservationSubBlocks") {
		return nil, http.StatusBadRequest, fmt.Sprintf("reservation %q must be projects/P/reservations/R/reservationBlocks/B or .../reservationBlocks/B/reservationSubBlocks/S", path)
	}
	if parts[1] != w.Inv.Project {
		return nil, http.StatusBadRequest, fmt.Sprintf("reservation %q is in project %q; the sandbox has only %q", path, parts[1], w.Inv.Project)
	}
	res, block := parts[3], parts[5]
	subs := w.SubBlocksOf(res, block)
	if len(subs) == 0 {
		return nil, http.StatusNotFound, fmt.Sprintf("reservation block %q of reservation %q was not found", block, res)
	}
	if len(parts) == 8 {
		sub := w.FindSubBlock(res, block, parts[7])
		switch {
		case sub == nil:
			return nil, http.StatusNotFound, fmt.Sprintf("reservation sub-block %q was not found in block %q of reservation %q", parts[7], block, res)
		case sub.NodePool != "":
			return nil, http.StatusBadRequest, fmt.Sprintf("reservation sub-block %q is already used by node pool %q", parts[7], sub.NodePool)
		}
		if healthy, degraded, _ := sub.Count(); healthy+degraded == 0 {
			return nil, http.StatusBadRequest, fmt.Sprintf("reservation sub-block %q has no healthy host; at least one is needed to create the node pool", parts[7])
		}
		return sub, 0, ""
	}
	for _, sub := range subs {
		if healthy, degraded, _ := sub.Count(); sub.NodePool == "" && healthy+degraded > 0 {
			return sub, 0, ""
		}
	}
	return nil, http.StatusBadRequest, fmt.Sprintf("reservation block %q of reservation %q has no available sub-block: all %d are in use or unhealthy", block, res, len(subs))
}

// provisionPool creates the pool's Nodes (after the node provisioning
// delay, if any) and marks it RUNNING. A pool deleted before or while its
// Nodes are made loses them (provisionNodes).
func (w *API) provisionPool(pool *cloud.NodePool) *cloud.OpError {
	if pool.Queued {
		// Its nodes come from ProvisioningRequests only (package dws).
		w.Mu.Lock()
		pool.Status = "RUNNING"
		w.Mu.Unlock()
		return nil
	}
	w.Mu.Lock()
	delay := time.Duration(w.Faults.NodeProvisionDelayMs) * time.Millisecond
	w.Mu.Unlock()
	if delay > 0 {
		w.After(cloud.Delay{Kind: cloud.DelayNodes, Of: pool.Name, For: delay}, func() { _ = w.provisionNodes(pool) })
	} else if err := w.provisionNodes(pool); err != nil {
		return &cloud.OpError{Code: rpcInternal, Message: "provisioning nodes: " + err.Error()}
	}
	w.Mu.Lock()
	pool.Status = "RUNNING"
	w.Mu.Unlock()
	return nil
}

// provisionNodes makes the pool's Nodes unless the pool is being or has
// been deleted; when a delete overtook it (it ran while the Nodes were
// made, or before, with a node provisioning delay), the Nodes it made are
// removed, so that a pool's nodes always go with it.
func (w *API) provisionNodes(pool *cloud.NodePool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if w.poolDeleted(pool) {
		return nil
	}
	err := w.ReconcileNodes(ctx, pool)
	if !w.poolDeleted(pool) {
		return err
	}
	pool.ReconcileMu.Lock()
	defer pool.ReconcileMu.Unlock()
	w.Mu.Lock()
	reused := w.NodePools[pool.Name] != nil && w.NodePools[pool.Name] != pool
	w.Mu.Unlock()
	if reused { // a new pool of the same name owns the Nodes now
		return nil
	}
	return w.DeleteNodes(ctx, pool.Name)
}

// poolDeleted says whether the pool is being deleted or is gone.
func (w *API) poolDeleted(pool *cloud.NodePool) bool {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	return w.NodePools[pool.Name] != pool || pool.Status == "STOPPING"
}

func (w *API) deleteNodePool(rw http.ResponseWriter, r *http.Request) {
	w.Mu.Lock()
	pool, ok := w.NodePools[r.PathValue("pool")]
	if ok {
		if msg := w.poolOperationRunning(pool); msg != "" {
			w.Mu.Unlock()
			googleapi.WriteError(rw, http.StatusBadRequest, "FAILED_PRECONDITION", msg, "failedPrecondition")
			return
		}
	}
	if ok && pool.Status == "STOPPING" {
		w.Mu.Unlock()
		googleapi.WriteError(rw, http.StatusBadRequest, "FAILED_PRECONDITION", "node pool "+pool.Name+" is already being deleted", "failedPrecondition")
		return
	}
	if ok {
		pool.Status = "STOPPING"
	}
	w.Mu.Unlock()
	if !ok {
		googleapi.NotFound(rw, w.clusterPath()+"/nodePools/"+r.PathValue("pool"))
		return
	}
	target := "https://container.googleapis.com/v1/" + w.clusterPath() + "/nodePools/" + pool.Name
	op := w.StartOperation("container", "DELETE_NODE_POOL", "locations/"+w.Inv.Region, target, func() *cloud.OpError {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		pool.ReconcileMu.Lock()
		defer pool.ReconcileMu.Unlock()
		if err := w.DeleteNodes(ctx, pool.Name); err != nil {
			return &cloud.OpError{Code: rpcInternal, Message: "deleting nodes: " + err.Error()}
		}
		w.Mu.Lock()
		defer w.Mu.Unlock()
		delete(w.NodePools, pool.Name)
		if pool.SubBlock != nil {
			pool.SubBlock.NodePool = ""
		}
		w.forgetQueuedPool(pool)
		return nil
	})
	w.Mu.Lock()
	pool.Operation = op.Name
	w.Mu.Unlock()
	w.writeContainerOperation(rw, op)
}

// poolOperationRunning is GKE's refusal of a delete of the pool while the
// pool's own create or delete operation runs, or "" when none runs. An
// operation the HoldOperations fault holds runs for as long as it is held:
// it is RUNNING in every answer that shows it. Callers hold w.Mu.
//
// GKE answers such a delete 400 FAILED_PRECONDITION, "Operation
// operation-1516271572246-49958a11 is currently creating a node pool for
// cluster CLUSTER. Please wait and try again once it is done." (and
// "is currently deleting a node pool" while a delete runs), as reported in
// hashicorp/terraform-provider-google issues #975 and #10366.
func (w *API) poolOperationRunning(pool *cloud.NodePool) string {
	op := w.Ops[pool.Operation]
	if op == nil || op.Done && !w.Held.Held("container", op.Name) {
		return ""
	}
	doing := "creating"
	if op.Type == "DELETE_NODE_POOL" {
		doing = "deleting"
	}
	return fmt.Sprintf("Operation %s is currently %s a node pool for cluster %s. Please wait and try again once it is done.", op.Name, doing, w.Inv.Cluster)
}
