package slicecheck

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// reconcile brings one Workload's Slices and check state in line.
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
	v, ok, err := c.view(stored.DeepCopy())
	if !ok {
		return 0, err
	}
	own := c.ownSlices(v.namespace, v.name)
	if v.deleting || v.finished || v.evicted || v.inactive || !v.quotaReserved {
		return c.finalize(ctx, v, own)
	}
	if err != nil {
		return 0, c.setCheck(ctx, v, checkRejected, err.Error(), nil)
	}
	if len(v.podSets) == 0 || slices.ContainsFunc(v.podSets, func(p wlPodSet) bool { return p.assignment == nil }) {
		return 0, nil // no slice asked for, or TAS has not assigned yet
	}
	if !slices.Contains(v.obj.GetFinalizers(), sliceCheckFinalizer) {
		v.obj.SetFinalizers(append(v.obj.GetFinalizers(), sliceCheckFinalizer))
		_, err := c.dyn.Resource(WorkloadGVR).Namespace(v.namespace).Update(ctx, v.obj, metav1.UpdateOptions{})
		return 0, ignoreConflict(err)
	}
	return c.reconcileSlices(ctx, v, own)
}

// reconcileSlices brings the Slices of a Workload that has its assignment
// and the check's finalizer in line with the assignment, and the check in
// line with the Slices.
func (c *Check) reconcileSlices(ctx context.Context, v wlView, own []*unstructured.Unstructured) (time.Duration, error) {
	var live, going []*unstructured.Unstructured
	for _, s := range own {
		if s.GetDeletionTimestamp() != nil {
			going = append(going, s)
		} else {
			live = append(live, s)
		}
	}
	desired := 0
	for _, p := range v.podSets {
		desired += p.groups
	}
	if handled, err := c.settleCheckState(ctx, v, live, going, desired); handled {
		return 0, err
	}
	want, problem := c.wantedSlices(v)
	if problem != "" {
		return 0, c.setCheck(ctx, v, checkRetry, problem, nil)
	}
	create, stale := missingSlices(want, live)
	if stale != nil {
		return 0, c.deleteSlices(ctx, []*unstructured.Unstructured{stale})
	}
	if len(create) > 0 {
		return 0, c.createSlices(ctx, v, create)
	}
	return c.followSlices(ctx, v, live, desired)
}

// settleCheckState handles the check states in which Slices are deleted
// rather than made: a Ready check that lost a Slice turns Retry and
// deletes the others; a Retry or Rejected check deletes the live Slices;
// while Slices are being deleted, it waits. It reports whether it handled
// the Workload.
func (c *Check) settleCheckState(ctx context.Context, v wlView, live, going []*unstructured.Unstructured, desired int) (bool, error) {
	state, _ := v.check["state"].(string)
	switch {
	case state == checkReady && (len(going) > 0 || len(live) != desired):
		if err := c.setCheck(ctx, v, checkRetry, "A Slice of the workload has been deleted", nil); err != nil {
			return true, err
		}
		return true, c.deleteSlices(ctx, live)
	case state == checkRetry || state == checkRejected:
		// Kueue evicts the Workload and puts the check back to Pending.
		return true, c.deleteSlices(ctx, live)
	case len(going) > 0:
		return true, nil // the next state comes with their deletion
	}
	return false, nil
}

// followSlices sets the check from the state of the Workload's Slices.
func (c *Check) followSlices(ctx context.Context, v wlView, live []*unstructured.Unstructured, desired int) (time.Duration, error) {
	counts := map[string]int{}
	var failures []string
	for _, s := range live {
		sv := slicecontroller.ViewOf(s)
		state := sv.State
		if state == "" {
			state = "CREATED"
		}
		counts[state]++
		switch sv.State {
		case slicecontroller.ReasonFailed:
			_, msg := slicecontroller.ReadyReason(s)
			failures = append(failures, fmt.Sprintf("%s: %s", sv.Name, msg))
		case slicecontroller.ReasonSliceCreationFailed:
			if !sv.Retry {
				_, msg := slicecontroller.ReadyReason(s)
				failures = append(failures, fmt.Sprintf("%s: %s", sv.Name, msg))
			}
		case slicecontroller.ReasonActive, slicecontroller.ReasonActiveDegraded:
		default:
			if time.Since(s.GetCreationTimestamp().Time) >= sliceActivationTimeout {
				failures = append(failures, fmt.Sprintf("%s: not ACTIVE after %s (FormationTimeout)", sv.Name, sliceActivationTimeout))
			}
		}
	}
	states := make([]string, 0, len(counts))
	for state, n := range counts {
		states = append(states, fmt.Sprintf("%d %s", n, state))
	}
	slices.Sort(states)
	msg := "Slices are in states: " + strings.Join(states, ", ")
	active := counts[slicecontroller.ReasonActive] + counts[slicecontroller.ReasonActiveDegraded]
	switch {
	case active == desired:
		return 0, c.setCheck(ctx, v, checkReady, msg, v.podSetUpdates())
	case len(failures) > 0:
		if err := c.setCheck(ctx, v, checkRetry, msg+". Errors: "+strings.Join(failures, "; "), nil); err != nil {
			return 0, err
		}
		return 0, c.deleteSlices(ctx, live)
	default:
		if err := c.setCheck(ctx, v, checkPending, msg, nil); err != nil {
			return 0, err
		}
		return 5 * time.Second, nil // to notice a Slice that never forms
	}
}

// podSetUpdates pin each pod set's pods to nodes of its slice topology.
func (v wlView) podSetUpdates() []any {
	out := make([]any, 0, len(v.podSets))
	for _, p := range v.podSets {
		out = append(out, map[string]any{"name": p.name, "nodeSelector": map[string]any{wellknown.LabelSliceTopology: p.topology.String()}})
	}
	return out
}

// setCheck writes the check's state and message (and, when Ready, the pod
// set updates) into the Workload's status, unless they are already so.
func (c *Check) setCheck(ctx context.Context, v wlView, state, message string, updates []any) error {
	if len(message) > 1024 {
		message = message[:1021] + "..."
	}
	old, _ := v.check["state"].(string)
	oldMsg, _ := v.check["message"].(string)
	if old == state && oldMsg == message {
		return nil
	}
	entry := map[string]any{
		"name":               v.check["name"],
		"state":              state,
		"message":            message,
		"lastTransitionTime": v.check["lastTransitionTime"],
	}
	if old != state || entry["lastTransitionTime"] == nil {
		entry["lastTransitionTime"] = time.Now().UTC().Format(time.RFC3339)
	}
	if state == checkRetry {
		entry["requeueAfterSeconds"] = int64(sliceRetryDelay / time.Second)
	}
	if len(updates) > 0 {
		entry["podSetUpdates"] = updates
	}
	patch := map[string]any{
		"apiVersion": WorkloadGVR.GroupVersion().String(), "kind": "Workload",
		"metadata": map[string]any{"name": v.name, "namespace": v.namespace},
		"status":   map[string]any{"admissionChecks": []any{entry}},
	}
	if old != state {
		c.log.Printf("workload %s/%s: check %v %s → %s: %s", v.namespace, v.name, v.check["name"], old, state, message)
	}
	err := c.applyStatus(ctx, c.dyn.Resource(WorkloadGVR).Namespace(v.namespace), v.name, patch)
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
