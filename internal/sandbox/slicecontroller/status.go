package slicecontroller

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// transition moves the slice to the state reason and records an Event of
// eventType that says so. The Event comes first, so that whoever sees the
// new state also finds its Event (the provider lists a failed slice's
// Events in its error). It is recorded once per transition: the
// controller's cache can still hold the slice's previous version when the
// slice is reconciled again (labelling its nodes re-queues it while its own
// status write is on the way), and the step is then repeated from that same
// version, with a write that conflicts and must not be announced again.
func (c *Controller) transition(ctx context.Context, v View, eventType, reason, message string) error {
	return c.transitionThen(ctx, v, eventType, reason, message, nil)
}

// transitionThen is transition, running then (when set) once the state is
// written: not when the write failed, or lost to a newer version of the
// slice (the view was stale).
func (c *Controller) transitionThen(ctx context.Context, v View, eventType, reason, message string, then func()) error {
	if c.firstAnnouncement(v, reason) {
		c.event(ctx, v, eventType, reason, message)
	}
	return c.setStateThen(ctx, v, reason, message, then)
}

// firstAnnouncement reports whether the slice's transition to reason from
// the version v holds is announced for the first time, and notes it.
func (c *Controller) firstAnnouncement(v View, reason string) bool {
	key := v.Obj.GetResourceVersion() + " " + reason
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.announced == nil {
		c.announced = map[types.UID]string{}
	}
	if c.announced[v.Obj.GetUID()] == key {
		return false
	}
	c.announced[v.Obj.GetUID()] = key
	return true
}

// setState writes the Ready condition (and SliceCreationFailed) through
// the status subresource.
func (c *Controller) setState(ctx context.Context, v View, reason, message string) error {
	return c.setStateThen(ctx, v, reason, message, nil)
}

// setStateThen is setState, running then (when set) once the state is
// written: not when the write failed, or lost to a newer version of the
// slice (a conflict: the view was stale, and the newer version is
// reconciled in turn).
func (c *Controller) setStateThen(ctx context.Context, v View, reason, message string, then func()) error {
	obj := v.Obj.DeepCopy()
	ready := metav1.ConditionFalse
	if reason == ReasonActive || reason == ReasonActiveDegraded {
		ready = metav1.ConditionTrue
	}
	failed := metav1.ConditionFalse
	if reason == ReasonSliceCreationFailed {
		failed = metav1.ConditionTrue
	}
	now := metav1.Now().UTC().Format(time.RFC3339)
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	conds = upsertCondition(conds, ConditionReady, string(ready), reason, message, obj.GetGeneration(), now)
	conds = upsertCondition(conds, ConditionCreationFailed, string(failed), reason, message, obj.GetGeneration(), now)
	if err := unstructured.SetNestedSlice(obj.Object, conds, "status", "conditions"); err != nil {
		return err
	}
	// The ACTIVE time is noted before the write and taken back if it fails:
	// a watcher can see the stored slice before this call returns, and must
	// then find the time.
	noted := false
	if ready == metav1.ConditionTrue && v.State != ReasonActive && v.State != ReasonActiveDegraded {
		c.mu.Lock()
		if _, seen := c.activeAt[obj.GetName()]; !seen {
			c.activeAt[obj.GetName()], noted = time.Now(), true
		}
		c.mu.Unlock()
	}
	_, err := c.slices.UpdateStatus(ctx, obj, metav1.UpdateOptions{})
	if err != nil && noted {
		c.mu.Lock()
		delete(c.activeAt, obj.GetName())
		c.mu.Unlock()
	}
	if err == nil && then != nil {
		then()
	}
	if apierrors.IsNotFound(err) {
		return nil
	}
	return ignoreConflict(err)
}

// MarkedActive is when the slice was first marked ACTIVE (or
// ACTIVE_DEGRADED), and whether it was.
func (c *Controller) MarkedActive(name string) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.activeAt[name]
	return at, ok
}

func upsertCondition(conds []any, typ, status, reason, message string, generation int64, now string) []any {
	for i, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["type"] != typ {
			continue
		}
		if m["status"] != status {
			m["lastTransitionTime"] = now
		}
		m["status"], m["reason"], m["message"], m["observedGeneration"] = status, reason, message, generation
		conds[i] = m
		return conds
	}
	return append(conds, map[string]any{
		"type": typ, "status": status, "reason": reason, "message": message,
		"observedGeneration": generation, "lastTransitionTime": now,
	})
}

// event records a Kubernetes Event on the slice, as the controller does.
func (c *Controller) event(ctx context.Context, v View, eventType, reason, message string) {
	now := metav1.Now()
	_, _ = c.kube.CoreV1().Events("default").Create(ctx, &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{GenerateName: v.Name + "."},
		InvolvedObject: corev1.ObjectReference{
			APIVersion: "accelerator.gke.io/v1beta1", Kind: "Slice", Name: v.Name, UID: v.Obj.GetUID(),
		},
		Type: eventType, Reason: reason, Message: message,
		Source:         corev1.EventSource{Component: "slice-controller"},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
		ReportingController: "accelerator.gke.io/slice-controller", ReportingInstance: "sandbox",
	}, metav1.CreateOptions{})
}
