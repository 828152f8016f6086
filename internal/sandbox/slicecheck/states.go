package slicecheck

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// How the check sees a Slice: the states the open-source controller names
// in its messages, in the order it lists them.
const (
	stateCreated        = "CREATED"    // no Ready condition yet
	stateActivating     = "ACTIVATING" // a Ready condition that is not ACTIVE
	stateActive         = "ACTIVE"
	stateActiveDegraded = "ACTIVE_DEGRADED"
	stateFailed         = "FAILED"
	stateDeleted        = "DELETED" // being deleted
	stateStale          = "STALE"   // not ACTIVE within the activation timeout
)

// sliceStates is the order of the states in the check's message.
var sliceStates = []string{stateCreated, stateActivating, stateActive, stateActiveDegraded, stateFailed, stateDeleted, stateStale}

// readyCondition is a Slice's Ready condition, or nil.
func readyCondition(s *unstructured.Unstructured) map[string]any {
	conds, _, _ := unstructured.NestedSlice(s.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == slicecontroller.ConditionReady {
			return m
		}
	}
	return nil
}

// sliceState is the state of a Slice at now, with activation as the
// activation timeout: DELETED when being deleted; FAILED when its Ready
// condition says FAILED, or SliceCreationFailed on a Slice that does not
// ask the slice controller to retry; STALE when it has had no Ready
// condition, or a False one, for the activation timeout; ACTIVE and
// ACTIVE_DEGRADED as its Ready condition says; CREATED with no Ready
// condition; ACTIVATING otherwise.
func sliceState(s *unstructured.Unstructured, now time.Time, activation time.Duration) string {
	if s.GetDeletionTimestamp() != nil {
		return stateDeleted
	}
	cond := readyCondition(s)
	status, _ := cond["status"].(string)
	reason, _ := cond["reason"].(string)
	if cond != nil && status != "True" {
		retry := s.GetAnnotations()[wellknown.AnnotationRetryOnFailure] == "true"
		if reason == slicecontroller.ReasonFailed || (reason == slicecontroller.ReasonSliceCreationFailed && !retry) {
			return stateFailed
		}
	}
	switch {
	case cond == nil:
		if created := s.GetCreationTimestamp(); !created.IsZero() && now.Sub(created.Time) >= activation {
			return stateStale
		}
		return stateCreated
	case status == "False":
		if since, err := time.Parse(time.RFC3339, fmt.Sprint(cond["lastTransitionTime"])); err == nil && now.Sub(since) >= activation {
			return stateStale
		}
	case status == "True" && reason == slicecontroller.ReasonActive:
		return stateActive
	case status == "True" && reason == slicecontroller.ReasonActiveDegraded:
		return stateActiveDegraded
	}
	return stateActivating
}

// groupedSlices are a Workload's Slices by what the check does with them.
type groupedSlices struct {
	byState map[string][]*unstructured.Unstructured
}

func (c *Check) group(list []*unstructured.Unstructured) groupedSlices {
	g := groupedSlices{byState: map[string][]*unstructured.Unstructured{}}
	now := c.opts.Now()
	for _, s := range list {
		st := sliceState(s, now, c.opts.ActivationTimeout)
		g.byState[st] = append(g.byState[st], s)
	}
	return g
}

func (g groupedSlices) of(states ...string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, st := range states {
		out = append(out, g.byState[st]...)
	}
	return out
}

// deleted are the Slices being deleted; toDelete the FAILED and STALE
// ones; forming those CREATED or ACTIVATING; live all but the deleted.
func (g groupedSlices) deleted() []*unstructured.Unstructured  { return g.of(stateDeleted) }
func (g groupedSlices) toDelete() []*unstructured.Unstructured { return g.of(stateFailed, stateStale) }
func (g groupedSlices) forming() []*unstructured.Unstructured {
	return g.of(stateCreated, stateActivating)
}
func (g groupedSlices) live() []*unstructured.Unstructured {
	return g.of(stateActive, stateActiveDegraded, stateCreated, stateActivating, stateFailed, stateStale)
}

// checkMessage is the check's message: how many Slices are in each state,
// in the fixed order ("Slices are in states: 1 ACTIVATING, 1 ACTIVE"), or
// "Waiting for Slices to be created"; with the FAILED Slices' messages
// after ". Errors: " when some failed.
func (g groupedSlices) checkMessage() string {
	var parts []string
	for _, st := range sliceStates {
		if n := len(g.byState[st]); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	msg := "Waiting for Slices to be created"
	if len(parts) > 0 {
		msg = "Slices are in states: " + strings.Join(parts, ", ")
	}
	var errs []string
	for _, s := range g.byState[stateFailed] {
		if cond := readyCondition(s); cond != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", s.GetName(), cond["message"]))
		}
	}
	if len(errs) > 0 {
		msg += ". Errors: " + strings.Join(errs, "; ")
	}
	return truncate(msg, maxConditionMessage)
}

// Limits of the messages the check writes, and how it cuts longer ones.
const (
	maxConditionMessage = 32 * 1024
	maxEventMessage     = 1024
)

func truncate(msg string, limit int) string {
	if len(msg) <= limit {
		return msg
	}
	const suffix = " ..."
	return msg[:limit-len(suffix)] + suffix
}
