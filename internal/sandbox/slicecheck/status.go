package slicecheck

import (
	"context"
	"fmt"
	"time"
)

// What the check writes into a Workload's status: its entry in
// status.admissionChecks and, when it evicts the Workload, the condition
// TPUSliceFailure saying why (turned False, "Previously: …", once the check
// is no longer Retry, and gone with the status write after that).

// ConditionSliceFailure is the Workload condition of an eviction by the
// check; its reasons say what failed.
const ConditionSliceFailure = "TPUSliceFailure"

// The reasons of ConditionSliceFailure.
const (
	// ReasonDeletion: a Slice of a running Workload was deleted.
	ReasonDeletion = "Deletion"
	// ReasonConfigurationFailure: the Slices cannot be made as assigned
	// (partitions held by other Slices, or too few or too many).
	ReasonConfigurationFailure = "ConfigurationFailure"
	// ReasonRuntimeFailure: a Slice FAILED.
	ReasonRuntimeFailure = "RuntimeFailure"
	// ReasonFormationTimeout: a Slice did not form in time (only when the
	// Slices retry their formation themselves; the check otherwise makes a
	// STALE Slice again).
	ReasonFormationTimeout = "FormationTimeout"
)

// Event reasons of the check on Workloads.
const (
	EventSlicesCreated         = "SlicesCreated"
	EventFailedCreateSlice     = "FailedCreateSlice"
	EventAdmissionCheckUpdated = "AdmissionCheckUpdated"
)

// evict sets the check Retry with message, for reason (a
// ConditionSliceFailure reason): Kueue then evicts the Workload and
// requeues it after the retry delay. As the controller's, it records no
// AdmissionCheckUpdated event (Kueue records its own eviction).
func (c *Check) evict(ctx context.Context, v wlView, reason, message string) error {
	return c.setCheck(ctx, &v, checkRetry, message, reason)
}

// setCheck writes the check's state and message (Ready: with the pod set
// updates; Retry: with the requeue delay and, when reason is set, the
// condition TPUSliceFailure) into the Workload's status, unless they are
// already so. It updates v.check to what it wrote.
func (c *Check) setCheck(ctx context.Context, v *wlView, state, message, reason string) error {
	message = truncate(message, maxConditionMessage)
	old, _ := v.check["state"].(string)
	oldMsg, _ := v.check["message"].(string)
	if old == state && oldMsg == message && reason == "" {
		return nil
	}
	entry := map[string]any{
		"name":               v.check["name"],
		"state":              state,
		"message":            message,
		"lastTransitionTime": v.check["lastTransitionTime"],
	}
	if old != state || entry["lastTransitionTime"] == nil {
		entry["lastTransitionTime"] = c.opts.Now().UTC().Format(time.RFC3339)
	}
	if state == checkRetry {
		entry["requeueAfterSeconds"] = int64(c.opts.RetryDelay.Round(time.Second) / time.Second)
	}
	if state == checkReady {
		entry["podSetUpdates"] = v.podSetUpdates()
	}
	status := map[string]any{"admissionChecks": []any{entry}}
	if cond := c.sliceFailureCondition(v, state, message, reason); cond != nil {
		status["conditions"] = []any{cond}
	}
	patch := map[string]any{
		"apiVersion": WorkloadGVR.GroupVersion().String(), "kind": "Workload",
		"metadata": map[string]any{"name": v.name, "namespace": v.namespace},
		"status":   status,
	}
	if err := ignoreNotFound(c.applyStatus(ctx, c.dyn.Resource(WorkloadGVR).Namespace(v.namespace), v.name, patch)); err != nil {
		return fmt.Errorf("writing the check %v of workload %s/%s: %w", v.check["name"], v.namespace, v.name, err)
	}
	if old != state {
		c.log.Printf("workload %s/%s: check %v %s → %s: %s", v.namespace, v.name, v.check["name"], old, state, message)
	}
	for k, val := range entry {
		v.check[k] = val
	}
	return nil
}

// sliceFailureCondition is the TPUSliceFailure condition to write with the
// check: True with reason and the check's message on an eviction; False,
// "Previously: …", when a True one is there and the check is not Retry;
// else nil. A server-side apply keeps only what it names, so a status write
// that names no condition takes a False one (or a True one left under a
// Retry) away: the open-source controller's condition is seen to go so,
// with its next write after the "Previously" one.
func (c *Check) sliceFailureCondition(v *wlView, state, message, reason string) map[string]any {
	have := conditionOf(v.obj, ConditionSliceFailure)
	now := c.opts.Now().UTC().Format(time.RFC3339)
	switch {
	case reason != "":
		cond := map[string]any{"type": ConditionSliceFailure, "status": "True", "reason": reason, "message": message, "lastTransitionTime": now}
		if have["status"] == "True" && have["lastTransitionTime"] != nil {
			cond["lastTransitionTime"] = have["lastTransitionTime"]
		}
		return cond
	case have["status"] == "True" && state != checkRetry:
		prev, _ := have["message"].(string)
		return map[string]any{"type": ConditionSliceFailure, "status": "False", "reason": have["reason"],
			"message": truncate("Previously: "+prev, maxConditionMessage), "lastTransitionTime": now}
	}
	return nil
}
