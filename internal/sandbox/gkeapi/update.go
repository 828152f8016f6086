package gkeapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// updateNodePoolRequest is the part of UpdateNodePoolRequest the sandbox
// applies: the nodes' Kubernetes labels and taints, and the pool's GCP
// labels (resourceLabels).
type updateNodePoolRequest struct {
	Labels *struct {
		Labels map[string]string `json:"labels"`
	} `json:"labels"`
	Taints *struct {
		Taints []nodeTaint `json:"taints"`
	} `json:"taints"`
	ResourceLabels *struct {
		Labels map[string]string `json:"labels"`
	} `json:"resourceLabels"`
}

// updateNodePool is nodePools.update (PUT): the new labels go on the
// pool's nodes in place, as GKE applies them; taints are recorded on the
// pool only (its Nodes carry just the taints of node_lifecycle.go), and so
// are the GCP labels (resourceLabels), which GKE puts on the VMs and
// disks; the other fields are ignored. Reserved label and taint keys are
// refused as at create (reserved.go).
func (w *API) updateNodePool(rw http.ResponseWriter, r *http.Request) {
	body, ok := googleapi.AcceptBody(rw, r, nodePoolUpdate[isBeta(r)])
	if !ok {
		return
	}
	var req updateNodePoolRequest
	if err := json.Unmarshal(body, &req); err != nil {
		googleapi.BadRequest(rw, "the request body must be an UpdateNodePoolRequest: "+err.Error())
		return
	}
	var labels map[string]string
	var taints []nodeTaint
	if req.Labels != nil {
		labels = req.Labels.Labels
	}
	if req.Taints != nil {
		taints = req.Taints.Taints
	}
	if msg := reservedKeys(labels, taints); msg != "" {
		googleapi.BadRequest(rw, msg)
		return
	}
	// An update of nothing the sandbox emulates (acceptBody logged the
	// fields) is an operation that changes nothing, as GKE's would be to
	// a client that cannot see those fields.
	pool, ok := w.runningPool(rw, r.PathValue("pool"))
	if !ok {
		return
	}
	w.updatePoolInBackground(rw, pool, "UPDATE_NODE_POOL", func() *cloud.OpError {
		w.Mu.Lock()
		old := pool.Labels
		w.applyPoolUpdate(pool, req)
		now := pool.Labels
		w.Mu.Unlock()
		if req.Labels == nil {
			return nil
		}
		return w.relabelNodes(pool, old, now)
	})
}

// applyPoolUpdate records an update's labels, taints and GCP labels on the
// pool: an empty set removes the field. Callers hold w.Mu.
func (w *API) applyPoolUpdate(pool *cloud.NodePool, req updateNodePoolRequest) {
	cfg, _ := pool.Raw["config"].(map[string]any)
	if cfg == nil {
		cfg = map[string]any{}
		pool.Raw["config"] = cfg
	}
	set := func(field string, v any, empty bool) {
		if empty {
			delete(cfg, field)
		} else {
			cfg[field] = v
		}
	}
	if req.Labels != nil {
		pool.Labels = req.Labels.Labels
		set("labels", req.Labels.Labels, len(req.Labels.Labels) == 0)
	}
	if req.Taints != nil {
		set("taints", req.Taints.Taints, len(req.Taints.Taints) == 0)
	}
	if req.ResourceLabels != nil {
		set("resourceLabels", req.ResourceLabels.Labels, len(req.ResourceLabels.Labels) == 0)
	}
}

// setNodePoolManagement is nodePools.setManagement.
func (w *API) setNodePoolManagement(rw http.ResponseWriter, r *http.Request, name string) {
	body, ok := googleapi.AcceptBody(rw, r, nodePoolSetManagement[isBeta(r)])
	if !ok {
		return
	}
	var req struct {
		Management map[string]any `json:"management"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Management == nil {
		googleapi.BadRequest(rw, "the request body must be a SetNodePoolManagementRequest with a management")
		return
	}
	pool, ok := w.runningPool(rw, name)
	if !ok {
		return
	}
	w.updatePoolInBackground(rw, pool, "SET_NODE_MANAGEMENT", func() *cloud.OpError {
		w.Mu.Lock()
		defer w.Mu.Unlock()
		pool.Raw["management"] = req.Management
		return nil
	})
}

// poolAction serves POST .../nodePools/{pool}:action.
func (w *API) poolAction(rw http.ResponseWriter, r *http.Request) {
	name, action, _ := strings.Cut(r.PathValue("pool"), ":")
	switch action {
	case "setManagement":
		w.setNodePoolManagement(rw, r, name)
	default:
		googleapi.NotFound(rw, w.clusterPath()+"/nodePools/"+r.PathValue("pool"))
	}
}

// runningPool returns the named pool when it can take an update, else
// writes GKE's error.
func (w *API) runningPool(rw http.ResponseWriter, name string) (*cloud.NodePool, bool) {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	pool, ok := w.NodePools[name]
	if !ok {
		googleapi.NotFound(rw, w.clusterPath()+"/nodePools/"+name)
		return nil, false
	}
	if pool.Status != "RUNNING" {
		googleapi.WriteError(rw, http.StatusBadRequest, "FAILED_PRECONDITION",
			fmt.Sprintf("node pool %s is %s: an operation is in progress or it failed; wait or re-create it", name, pool.Status), "failedPrecondition")
		return nil, false
	}
	pool.Status = "RECONCILING"
	return pool, true
}

// updatePoolInBackground runs work as an operation of opType and returns
// the pool to RUNNING after it.
func (w *API) updatePoolInBackground(rw http.ResponseWriter, pool *cloud.NodePool, opType string, work func() *cloud.OpError) {
	target := "https://container.googleapis.com/v1/" + w.clusterPath() + "/nodePools/" + pool.Name
	op := w.StartOperation("container", opType, "locations/"+w.Inv.Region, target, func() *cloud.OpError {
		err := work()
		w.Mu.Lock()
		pool.Status = "RUNNING"
		w.Mu.Unlock()
		return err
	})
	w.writeContainerOperation(rw, op)
}

// relabelNodes sets the pool's user labels on its nodes: the old ones
// that are gone are removed, the others set.
func (w *API) relabelNodes(pool *cloud.NodePool, old, now map[string]string) *cloud.OpError {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pool.ReconcileMu.Lock()
	defer pool.ReconcileMu.Unlock()
	labels := map[string]any{}
	for k := range old {
		labels[k] = nil
	}
	for k, v := range now {
		labels[k] = v
	}
	if len(labels) == 0 {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": labels}})
	if err != nil {
		return &cloud.OpError{Code: rpcInternal, Message: err.Error()}
	}
	nodes, err := w.Kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: wellknown.LabelNodePool + "=" + pool.Name})
	if err != nil {
		return &cloud.OpError{Code: rpcInternal, Message: "listing nodes: " + err.Error()}
	}
	for _, n := range nodes.Items {
		if _, err := w.Kube.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return &cloud.OpError{Code: rpcInternal, Message: fmt.Sprintf("labelling node %s: %v", n.Name, err)}
		}
	}
	return nil
}
