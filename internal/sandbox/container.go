package sandbox

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"
)

// GKE API status codes (google.rpc.Code) used in operation errors.
const (
	rpcInternal = 13
)

var poolNameRE = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$`)

// containerHandler serves the emulated GKE API (container/v1 and v1beta1)
// for the inventory's one regional cluster.
func (w *world) containerHandler() http.Handler {
	mux := http.NewServeMux()
	// v1beta1 is served as v1: the same messages, with fields of their own
	// that acceptBody reads off the v1beta1 types. The Terraform google
	// provider sends some calls to v1beta1.
	for _, v := range []string{"/v1", "/v1beta1"} {
		location := v + "/projects/{project}/locations/{location}"
		cluster := location + "/clusters/{cluster}"
		mux.HandleFunc("GET "+cluster, w.withCluster(w.getCluster))
		mux.HandleFunc("GET "+cluster+"/nodePools", w.withCluster(w.listNodePools))
		mux.HandleFunc("POST "+cluster+"/nodePools", w.withCluster(w.createNodePool))
		mux.HandleFunc("GET "+cluster+"/nodePools/{pool}", w.withCluster(w.getNodePool))
		mux.HandleFunc("DELETE "+cluster+"/nodePools/{pool}", w.withCluster(w.deleteNodePool))
		mux.HandleFunc("PUT "+cluster+"/nodePools/{pool}", w.withCluster(w.updateNodePool))
		mux.HandleFunc("POST "+cluster+"/nodePools/{pool}", w.withCluster(w.poolAction))
		mux.HandleFunc("GET "+location+"/operations/{op}", w.getContainerOperation)
		mux.HandleFunc("GET "+location+"/operations", w.listContainerOperations)
		mux.HandleFunc("GET "+location+"/clusters", w.listClusters)
	}
	mux.HandleFunc("/", func(rw http.ResponseWriter, r *http.Request) {
		notFound(rw, r.URL.Path)
	})
	return mux
}

// withCluster answers 404 unless the path names the sandbox cluster.
func (w *world) withCluster(next http.HandlerFunc) http.HandlerFunc {
	return func(rw http.ResponseWriter, r *http.Request) {
		p, l, c := r.PathValue("project"), r.PathValue("location"), r.PathValue("cluster")
		if p != w.inv.Project || l != w.inv.Region || c != w.inv.Cluster {
			notFound(rw, fmt.Sprintf("projects/%s/locations/%s/clusters/%s (the sandbox has projects/%s/locations/%s/clusters/%s)",
				p, l, c, w.inv.Project, w.inv.Region, w.inv.Cluster))
			return
		}
		next(rw, r)
	}
}

func (w *world) clusterPath() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", w.inv.Project, w.inv.Region, w.inv.Cluster)
}

func (w *world) getCluster(rw http.ResponseWriter, _ *http.Request) {
	writeJSON(rw, http.StatusOK, w.clusterJSON())
}

// clusterJSON renders the cluster, as clusters.get and clusters.list
// answer.
func (w *world) clusterJSON() map[string]any {
	w.mu.Lock()
	pools := w.poolsJSON()
	version := w.clusterVersion
	w.mu.Unlock()
	return withNodeFields(map[string]any{
		"name":                  w.inv.Cluster,
		"location":              w.inv.Region,
		"locations":             []string{w.inv.Zone},
		"status":                "RUNNING",
		"endpoint":              w.clusterEndpoint,
		"currentMasterVersion":  version,
		"initialClusterVersion": version,
		"releaseChannel":        map[string]any{"channel": "RAPID"},
		"masterAuth":            map[string]any{"clusterCaCertificate": base64.StdEncoding.EncodeToString(w.clusterCA)},
		"addonsConfig":          map[string]any{"sliceControllerConfig": map[string]any{"enabled": true}},
		"selfLink":              "https://container.googleapis.com/v1/" + w.clusterPath(),
		"nodePools":             pools,
	}, pools)
}

// poolsJSON renders every pool, sorted by name. Callers hold w.mu.
func (w *world) poolsJSON() []map[string]any {
	names := make([]string, 0, len(w.nodePools))
	for n := range w.nodePools {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]map[string]any, 0, len(names))
	for _, n := range names {
		out = append(out, w.poolJSON(w.nodePools[n]))
	}
	return out
}

// poolJSON echoes the pool as created, with the fields GKE sets. Callers
// hold w.mu.
func (w *world) poolJSON(p *nodePool) map[string]any {
	out := map[string]any{}
	for k, v := range p.Raw {
		out[k] = v
	}
	out["name"] = p.Name
	out["status"] = p.Status
	out["version"] = w.clusterVersion
	out["selfLink"] = "https://container.googleapis.com/v1/" + w.clusterPath() + "/nodePools/" + p.Name
	out["locations"] = p.Locations
	out["initialNodeCount"] = p.NodeCount
	out["instanceGroupUrls"] = []string{w.zoneLink() + "/instanceGroupManagers/" + w.migName(p.Name)}
	if p.Status == "ERROR" {
		out["statusMessage"] = "node pool creation failed; delete and re-create it"
	}
	return out
}

func (w *world) listNodePools(rw http.ResponseWriter, _ *http.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	writeJSON(rw, http.StatusOK, map[string]any{"nodePools": w.poolsJSON()})
}

func (w *world) getNodePool(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	p, ok := w.nodePools[r.PathValue("pool")]
	if !ok {
		notFound(rw, w.clusterPath()+"/nodePools/"+r.PathValue("pool"))
		return
	}
	writeJSON(rw, http.StatusOK, w.poolJSON(p))
}

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
		ReservationAffinity *struct {
			ConsumeReservationType string   `json:"consumeReservationType"`
			Key                    string   `json:"key"`
			Values                 []string `json:"values"`
		} `json:"reservationAffinity"`
	} `json:"config"`
	PlacementPolicy *struct {
		Type       string `json:"type"`
		PolicyName string `json:"policyName"`
	} `json:"placementPolicy"`
}

func (w *world) createNodePool(rw http.ResponseWriter, r *http.Request) {
	body, ok := acceptBody(rw, r, nodePoolCreate[isBeta(r)])
	if !ok {
		return
	}
	var req createNodePoolRequest
	if err := json.Unmarshal(body, &req); err != nil || req.NodePool == nil {
		badRequest(rw, "the request body must be a CreateNodePoolRequest with a nodePool")
		return
	}
	raw, _ := json.Marshal(req.NodePool)
	var spec nodePoolSpec
	if err := json.Unmarshal(raw, &spec); err != nil {
		badRequest(rw, "nodePool: "+err.Error())
		return
	}

	w.mu.Lock()
	pool, status, msg := w.admitNodePool(spec, req.NodePool)
	w.mu.Unlock()
	if pool == nil {
		writeGoogleError(rw, status, statusName(status), msg, "invalid")
		return
	}

	target := "https://container.googleapis.com/v1/" + w.clusterPath() + "/nodePools/" + pool.Name
	op := w.startOperationOnFail("container", "CREATE_NODE_POOL", "locations/"+w.inv.Region, target,
		func() *opError { return w.provisionPool(pool) },
		func(*opError) {
			w.mu.Lock()
			pool.Status = "ERROR"
			w.mu.Unlock()
		})
	w.writeContainerOperation(rw, op)
}

// admitNodePool validates a create request against the inventory and, when
// it is admissible, records the pool and reserves its sub-block. Callers
// hold w.mu.
func (w *world) admitNodePool(spec nodePoolSpec, raw map[string]any) (*nodePool, int, string) {
	if !poolNameRE.MatchString(spec.Name) {
		return nil, http.StatusBadRequest, fmt.Sprintf("nodePool.name %q must be 1-40 lower-case letters, digits or hyphens, starting with a letter", spec.Name)
	}
	if _, exists := w.nodePools[spec.Name]; exists {
		return nil, http.StatusConflict, fmt.Sprintf("Already exists: %s/nodePools/%s", w.clusterPath(), spec.Name)
	}
	if spec.Config.MachineType != MachineType {
		return nil, http.StatusBadRequest, fmt.Sprintf("nodePool.config.machineType %q: the sandbox emulates dynamic slicing, which needs %q", spec.Config.MachineType, MachineType)
	}
	if spec.InitialNodeCount < 1 || spec.InitialNodeCount > HostsPerSubBlock {
		return nil, http.StatusBadRequest, fmt.Sprintf("nodePool.initialNodeCount %d: a sub-block node pool has 1 to %d nodes", spec.InitialNodeCount, HostsPerSubBlock)
	}
	for _, l := range spec.Locations {
		if l != w.inv.Zone {
			return nil, http.StatusBadRequest, fmt.Sprintf("nodePool.locations: %q is not the reservation's zone %q", l, w.inv.Zone)
		}
	}
	if spec.PlacementPolicy == nil || spec.PlacementPolicy.PolicyName == "" {
		return nil, http.StatusBadRequest, "nodePool.placementPolicy.policyName is required: a TPU7x node pool is placed by a workload policy"
	}
	if spec.PlacementPolicy.Type != "" {
		return nil, http.StatusBadRequest, fmt.Sprintf("nodePool.placementPolicy.type %q cannot be set together with a workload policy for tpu7x", spec.PlacementPolicy.Type)
	}
	policyName := spec.PlacementPolicy.PolicyName[strings.LastIndex(spec.PlacementPolicy.PolicyName, "/")+1:]
	policy, ok := w.policies[w.inv.Region+"/"+policyName]
	if !ok {
		return nil, http.StatusBadRequest, fmt.Sprintf("workload policy %q was not found in projects/%s/regions/%s", policyName, w.inv.Project, w.inv.Region)
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
	pool := &nodePool{
		Name:            spec.Name,
		MachineType:     spec.Config.MachineType,
		PolicyName:      policyName,
		ReservationPath: ra.Values[0],
		NodeCount:       spec.InitialNodeCount,
		Locations:       []string{w.inv.Zone},
		Labels:          spec.Config.Labels,
		Raw:             raw,
		SubBlock:        sub,
		Status:          "PROVISIONING",
		Created:         time.Now(),
	}
	sub.NodePool = pool.Name
	w.nodePools[pool.Name] = pool
	return pool, 0, ""
}

// resolveReservationPath finds the sub-block a reservation path targets:
// the named sub-block, or the first free one with a healthy host in a
// block. Callers hold w.mu.
func (w *world) resolveReservationPath(path string) (*subBlockState, int, string) {
	parts := strings.Split(path, "/")
	if len(parts) != 6 && len(parts) != 8 || parts[0] != "projects" || parts[2] != "reservations" || parts[4] != "reservationBlocks" ||
		(len(parts) == 8 && parts[6] != "reservationSubBlocks") {
		return nil, http.StatusBadRequest, fmt.Sprintf("reservation %q must be projects/P/reservations/R/reservationBlocks/B or .../reservationBlocks/B/reservationSubBlocks/S", path)
	}
	if parts[1] != w.inv.Project {
		return nil, http.StatusBadRequest, fmt.Sprintf("reservation %q is in project %q; the sandbox has only %q", path, parts[1], w.inv.Project)
	}
	res, block := parts[3], parts[5]
	subs := w.subBlocksOf(res, block)
	if len(subs) == 0 {
		return nil, http.StatusNotFound, fmt.Sprintf("reservation block %q of reservation %q was not found", block, res)
	}
	if len(parts) == 8 {
		sub := w.findSubBlock(res, block, parts[7])
		switch {
		case sub == nil:
			return nil, http.StatusNotFound, fmt.Sprintf("reservation sub-block %q was not found in block %q of reservation %q", parts[7], block, res)
		case sub.NodePool != "":
			return nil, http.StatusBadRequest, fmt.Sprintf("reservation sub-block %q is already used by node pool %q", parts[7], sub.NodePool)
		}
		if healthy, degraded, _ := sub.count(); healthy+degraded == 0 {
			return nil, http.StatusBadRequest, fmt.Sprintf("reservation sub-block %q has no healthy host; at least one is needed to create the node pool", parts[7])
		}
		return sub, 0, ""
	}
	for _, sub := range subs {
		if healthy, degraded, _ := sub.count(); sub.NodePool == "" && healthy+degraded > 0 {
			return sub, 0, ""
		}
	}
	return nil, http.StatusBadRequest, fmt.Sprintf("reservation block %q of reservation %q has no available sub-block: all %d are in use or unhealthy", block, res, len(subs))
}

// provisionPool creates the pool's Nodes (after the node provisioning
// delay, if any) and marks it RUNNING.
func (w *world) provisionPool(pool *nodePool) *opError {
	w.mu.Lock()
	delay := time.Duration(w.faults.NodeProvisionDelayMs) * time.Millisecond
	w.mu.Unlock()
	provision := func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		return w.reconcileNodes(ctx, pool)
	}
	if delay > 0 {
		go func() {
			time.Sleep(delay)
			_ = provision()
		}()
	} else if err := provision(); err != nil {
		return &opError{Code: rpcInternal, Message: "provisioning nodes: " + err.Error()}
	}
	w.mu.Lock()
	pool.Status = "RUNNING"
	w.mu.Unlock()
	return nil
}

func (w *world) deleteNodePool(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	pool, ok := w.nodePools[r.PathValue("pool")]
	if ok && pool.Status == "STOPPING" {
		w.mu.Unlock()
		writeGoogleError(rw, http.StatusBadRequest, "FAILED_PRECONDITION", "node pool "+pool.Name+" is already being deleted", "failedPrecondition")
		return
	}
	if ok {
		pool.Status = "STOPPING"
	}
	w.mu.Unlock()
	if !ok {
		notFound(rw, w.clusterPath()+"/nodePools/"+r.PathValue("pool"))
		return
	}
	target := "https://container.googleapis.com/v1/" + w.clusterPath() + "/nodePools/" + pool.Name
	op := w.startOperation("container", "DELETE_NODE_POOL", "locations/"+w.inv.Region, target, func() *opError {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		pool.reconcileMu.Lock()
		defer pool.reconcileMu.Unlock()
		if err := w.deleteNodes(ctx, pool.Name); err != nil {
			return &opError{Code: rpcInternal, Message: "deleting nodes: " + err.Error()}
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.nodePools, pool.Name)
		pool.SubBlock.NodePool = ""
		return nil
	})
	w.writeContainerOperation(rw, op)
}

func (w *world) getContainerOperation(rw http.ResponseWriter, r *http.Request) {
	if r.PathValue("project") != w.inv.Project || r.PathValue("location") != w.inv.Region {
		notFound(rw, r.URL.Path)
		return
	}
	w.mu.Lock()
	op, ok := w.ops[r.PathValue("op")]
	w.mu.Unlock()
	if !ok || op.API != "container" {
		notFound(rw, "operation "+r.PathValue("op"))
		return
	}
	w.writeContainerOperation(rw, op)
}

// writeContainerOperation answers with a GKE Operation.
func (w *world) writeContainerOperation(rw http.ResponseWriter, op *operation) {
	w.mu.Lock()
	out := w.containerOperationJSON(op)
	w.mu.Unlock()
	writeJSON(rw, http.StatusOK, out)
}

// containerOperationJSON renders a GKE Operation. Callers hold w.mu.
func (w *world) containerOperationJSON(op *operation) map[string]any {
	out := map[string]any{
		"name":          op.Name,
		"operationType": op.Type,
		"status":        "RUNNING",
		"location":      w.inv.Region,
		"zone":          w.inv.Region, // the deprecated name of location, still written; gcloud lists it
		"selfLink":      fmt.Sprintf("https://container.googleapis.com/v1/projects/%s/locations/%s/operations/%s", w.inv.Project, w.inv.Region, op.Name),
		"targetLink":    op.TargetLink,
		"startTime":     op.Started.UTC().Format(time.RFC3339Nano),
	}
	if op.Done {
		out["status"] = "DONE"
		out["endTime"] = op.Ended.UTC().Format(time.RFC3339Nano)
		if op.ErrMessage != "" {
			code := op.ErrCode
			if code >= 100 { // an HTTP status from an injected fault
				code = rpcInternal
			}
			out["error"] = map[string]any{"code": code, "message": op.ErrMessage}
			out["statusMessage"] = op.ErrMessage
		}
	}
	return out
}

func statusName(code int) string {
	switch code {
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusConflict:
		return "ALREADY_EXISTS"
	default:
		return "INVALID_ARGUMENT"
	}
}
