package slicecheck

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// reconcile brings one Workload's Slices and check state in line, in the
// open-source controller's order: finalize a Workload that no longer runs;
// leave alone one that asks for no slice or is not assigned yet; add the
// finalizer; evict a Ready Workload that lost a Slice; wait for Slices
// being deleted; make the missing Slices; set the check from their states;
// delete the FAILED and STALE ones (made again next time).
func (c *Check) reconcile(ctx context.Context, key string) (time.Duration, error) {
	item, exists, err := c.workloads.GetByKey(key)
	if err != nil {
		return 0, err
	}
	if !exists {
		// Its finalizer made the check delete its Slices before it went;
		// Slices that name a Workload that never existed are not the
		// check's business (GKE's leaves them alone too).
		return 0, nil
	}
	stored, isObj := item.(*unstructured.Unstructured)
	if !isObj {
		return 0, fmt.Errorf("workload cache holds %T", item)
	}
	v, ok := c.view(stored.DeepCopy())
	if v.finalize != "" {
		return c.finalize(ctx, v, c.ownSlices(v.namespace, v.name))
	}
	if !ok || v.skipReason() != "" {
		return 0, nil
	}
	if !slices.Contains(v.obj.GetFinalizers(), sliceCheckFinalizer) {
		v.obj.SetFinalizers(append(v.obj.GetFinalizers(), sliceCheckFinalizer))
		_, err := c.dyn.Resource(WorkloadGVR).Namespace(v.namespace).Update(ctx, v.obj, metav1.UpdateOptions{})
		return 0, ignoreConflict(ignoreNotFound(err))
	}

	own := c.ownSlices(v.namespace, v.name)
	g := c.group(own)
	desired := v.desiredSlices()
	state, _ := v.check["state"].(string)
	if state == checkReady && (len(g.deleted()) > 0 || len(own) != desired) {
		c.log.Printf("workload %s/%s: a Slice has been deleted, evicting the workload", v.namespace, v.name)
		if err := c.evict(ctx, v, ReasonDeletion, "Slice has been deleted"); err != nil {
			return 0, err
		}
		return 0, c.deleteSlices(ctx, g.live())
	}
	if len(g.deleted()) > 0 {
		return 0, nil // the next step comes with their deletion
	}

	made, gone, err := c.syncSlices(ctx, v, own)
	if errors.Is(err, errWorkloadEvicted) {
		return c.opts.RecheckEvery, nil
	}
	if err != nil {
		return 0, err
	}
	if len(made) > 0 || len(gone) > 0 {
		own = slices.DeleteFunc(own, func(s *unstructured.Unstructured) bool { return slices.Contains(gone, s.GetName()) })
		g = c.group(append(own, made...))
	}
	if err := c.syncCheck(ctx, &v, g, desired); err != nil {
		return 0, err
	}
	if state, _ = v.check["state"].(string); state == checkRetry {
		return 0, c.deleteSlices(ctx, g.live())
	}
	if del := g.toDelete(); len(del) > 0 {
		if err := c.deleteSlices(ctx, del); err != nil {
			return 0, err
		}
	}
	if len(g.forming()) > 0 {
		return c.opts.RecheckEvery, nil // to notice a Slice that turns STALE
	}
	return 0, nil
}

// syncCheck sets the check from the states of the Workload's Slices:
// Ready once as many are ACTIVE (or ACTIVE_DEGRADED) as the assignment
// calls for, Retry (eviction for RuntimeFailure) when one FAILED, Pending
// otherwise; its message counts the Slices by state; a change of state is
// an AdmissionCheckUpdated event. A check already Retry stays so until
// Kueue puts it back to Pending.
func (c *Check) syncCheck(ctx context.Context, v *wlView, g groupedSlices, desired int) error {
	old, _ := v.check["state"].(string)
	if old == checkRetry {
		return nil
	}
	state, reason := checkPending, ""
	switch {
	case desired == len(g.of(stateActive, stateActiveDegraded)):
		state = checkReady
	case len(g.of(stateFailed)) > 0:
		state, reason = checkRetry, ReasonRuntimeFailure
	}
	if err := c.setCheck(ctx, v, state, g.checkMessage(), reason); err != nil {
		return err
	}
	if old != state {
		c.opts.Events.Event(v.obj, corev1.EventTypeNormal, EventAdmissionCheckUpdated,
			fmt.Sprintf("Admission check %q updated state from %q to %q", v.check["name"], old, state))
	}
	return nil
}

// podSetUpdates pin each pod set's pods to nodes of its slice topology.
func (v wlView) podSetUpdates() []any {
	out := make([]any, 0, len(v.podSets))
	for _, p := range v.podSets {
		out = append(out, map[string]any{"name": p.name, "nodeSelector": map[string]any{wellknown.LabelSliceTopology: p.topology.String()}})
	}
	return out
}
