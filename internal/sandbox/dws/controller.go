package dws

import (
	"context"
	"errors"
	"fmt"
	"log"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// The reasons the emulation gives its conditions.
const (
	ReasonAccepted            = "Accepted"
	ReasonNotProvisioned      = "NotProvisioned"
	ReasonProvisioned         = "Provisioned"
	ReasonCapacityUnavailable = "CapacityUnavailable"
	ReasonNoQueuedPool        = "NoQueuedNodePool"
	ReasonMaxRunDuration      = "MaxRunDurationReached"
)

// SyncInterval is how often the controller reads every request.
const SyncInterval = 500 * time.Millisecond

// Controller answers ProvisioningRequests of class
// queued-provisioning.gke.io as GKE's autoscaler does.
type Controller struct {
	cloud Cloud
	kube  kubernetes.Interface
	dyn   dynamic.Interface
	// now is the clock (tests set it).
	now func() time.Time
	// Log, when set, receives a line per error of a background sync.
	Log *log.Logger
	// created are the keys of the requests whose nodes the controller
	// created and has not removed (only Sync, one at a time, uses it): the
	// sweep of deleted requests' nodes lists nodes only for them.
	created map[string]bool
}

// New is a controller over the cluster's API (kube, dyn) for cloud.
func New(cloud Cloud, kube kubernetes.Interface, dyn dynamic.Interface) *Controller {
	return &Controller{cloud: cloud, kube: kube, dyn: dyn, now: time.Now, created: map[string]bool{}}
}

// Start runs Sync every SyncInterval until ctx ends.
func (c *Controller) Start(ctx context.Context) {
	go func() {
		t := time.NewTicker(SyncInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := c.Sync(ctx); err != nil && ctx.Err() == nil && c.Log != nil {
					c.Log.Printf("dws: %v", err)
				}
			}
		}
	}()
}

// Sync answers every ProvisioningRequest once, and deletes the nodes of
// requests that are gone.
func (c *Controller) Sync(ctx context.Context) error {
	list, err := c.dyn.Resource(GVR).Namespace(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return nil // the API is not served (yet): nothing asks for nodes
	}
	if err != nil {
		return fmt.Errorf("listing ProvisioningRequests: %w", err)
	}
	live := map[string]bool{}
	var errs []error
	for i := range list.Items {
		req, err := readRequest(&list.Items[i])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		live[requestKey(req.obj.GetNamespace(), req.obj.GetName(), string(req.obj.GetUID()))] = true
		if req.class != ClassQueuedProvisioning {
			continue
		}
		if err := c.reconcile(ctx, req); err != nil {
			errs = append(errs, fmt.Errorf("ProvisioningRequest %s: %w", req.id(), err))
		}
	}
	errs = append(errs, c.sweep(ctx, live))
	return errors.Join(errs...)
}

// reconcile moves one request on: Accepted, then after the delay
// Provisioned (nodes created) or Failed, then its nodes removed when its
// run ends or its maximum run duration passes.
func (c *Controller) reconcile(ctx context.Context, req *request) error {
	now := c.now()
	switch {
	case req.is(CondFailed) || req.is(CondBookingExpired) || req.is(CondCapacityRevoked):
		return c.deleteNodes(ctx, req)
	case req.is(CondProvisioned):
		return c.reconcileProvisioned(ctx, req, now)
	case req.is(CondAccepted):
		return c.reconcileAccepted(ctx, req, now)
	}
	pool, err := c.poolFor(ctx, req)
	if err != nil {
		return err
	}
	if pool == nil {
		req.set(CondFailed, metav1.ConditionTrue, ReasonNoQueuedPool,
			"no node pool with queued provisioning matches the request's pod templates", now)
		return c.writeStatus(ctx, req)
	}
	req.set(CondAccepted, metav1.ConditionTrue, ReasonAccepted, "the request is accepted for node pool "+pool.Name, now)
	req.set(CondProvisioned, metav1.ConditionFalse, ReasonNotProvisioned, "waiting for capacity in node pool "+pool.Name, now)
	return c.writeStatus(ctx, req)
}

// reconcileAccepted provisions an accepted request once the delay has
// passed, or fails it when capacity is unavailable.
func (c *Controller) reconcileAccepted(ctx context.Context, req *request, now time.Time) error {
	if now.Sub(req.since(CondAccepted)) < c.cloud.ProvisionDelay() {
		return nil
	}
	pool, err := c.poolFor(ctx, req)
	if err != nil {
		return err
	}
	switch {
	case pool == nil:
		req.set(CondFailed, metav1.ConditionTrue, ReasonNoQueuedPool, "the request's node pool is gone", now)
		return c.writeStatus(ctx, req)
	case c.cloud.CapacityUnavailable():
		req.set(CondFailed, metav1.ConditionTrue, ReasonCapacityUnavailable,
			fmt.Sprintf("no capacity for %d nodes of %s in node pool %s", req.nodeCount(), pool.MachineType, pool.Name), now)
		return c.writeStatus(ctx, req)
	}
	if err := c.createNodes(ctx, req, *pool); err != nil {
		return err
	}
	req.set(CondProvisioned, metav1.ConditionTrue, ReasonProvisioned,
		fmt.Sprintf("%d nodes of node pool %s are provisioned", req.nodeCount(), pool.Name), now)
	return c.writeStatus(ctx, req)
}

// reconcileProvisioned removes a provisioned request's nodes when its
// maximum run duration has passed (BookingExpired) or its run has ended.
func (c *Controller) reconcileProvisioned(ctx context.Context, req *request, now time.Time) error {
	limit, err := req.maxRunDuration()
	if err != nil {
		return err
	}
	if now.Sub(req.since(CondProvisioned)) >= limit {
		if err := c.deleteNodes(ctx, req); err != nil {
			return err
		}
		req.set(CondBookingExpired, metav1.ConditionTrue, ReasonMaxRunDuration,
			fmt.Sprintf("the maximum run duration (%s) has passed; the nodes are removed", limit), now)
		return c.writeStatus(ctx, req)
	}
	ended, err := c.runEnded(ctx, req)
	if err != nil || !ended {
		return err
	}
	return c.deleteNodes(ctx, req)
}

// poolFor is the queued pool a request's pods are for: the one their
// templates select by name (cloud.google.com/gke-nodepool), else the one
// whose TPU labels they select; nil when none.
func (c *Controller) poolFor(ctx context.Context, req *request) (*Pool, error) {
	for _, ps := range req.podSets {
		t, err := c.kube.CoreV1().PodTemplates(req.obj.GetNamespace()).Get(ctx, ps.template, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		sel := t.Template.Spec.NodeSelector
		if name, ok := sel[LabelNodePool]; ok {
			if pool, ok := c.cloud.QueuedPool(name); ok {
				return &pool, nil
			}
			continue
		}
		pools := c.cloud.QueuedPools()
		slices.SortFunc(pools, func(a, b Pool) int { return compareNames(a.Name, b.Name) })
		for _, pool := range pools {
			if matches(sel, pool) {
				return &pool, nil
			}
		}
	}
	return nil, nil
}

// matches says whether a node selector without a pool name selects the
// pool's nodes by their TPU labels.
func matches(sel map[string]string, pool Pool) bool {
	labels := map[string]string{LabelAccelerator: pool.Accelerator, LabelTopology: pool.Topology, LabelMachineType: pool.MachineType}
	found := false
	for k, v := range sel {
		if have, ok := labels[k]; ok {
			if have != v {
				return false
			}
			found = true
		}
	}
	return found
}

func compareNames(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// writeStatus writes the request's conditions.
func (c *Controller) writeStatus(ctx context.Context, req *request) error {
	obj, err := req.withStatus()
	if err != nil {
		return err
	}
	_, err = c.dyn.Resource(GVR).Namespace(obj.GetNamespace()).UpdateStatus(ctx, obj, metav1.UpdateOptions{})
	return err
}
