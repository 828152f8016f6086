package dws

import (
	"fmt"
	"strconv"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// request is what the controller reads of a ProvisioningRequest.
type request struct {
	obj        *unstructured.Unstructured
	class      string
	params     map[string]string
	podSets    []podSet
	conditions []metav1.Condition
}

// podSet is one of a request's pod sets: its PodTemplate and how many
// pods of it are to run.
type podSet struct {
	template string
	count    int
}

// BadRequestError is a ProvisioningRequest the controller cannot read.
type BadRequestError struct {
	Request string
	Field   string
	Err     error
}

func (e *BadRequestError) Error() string {
	return fmt.Sprintf("ProvisioningRequest %s: %s: %v", e.Request, e.Field, e.Err)
}

func (e *BadRequestError) Unwrap() error { return e.Err }

// readRequest reads a ProvisioningRequest.
func readRequest(obj *unstructured.Unstructured) (*request, error) {
	id := obj.GetNamespace() + "/" + obj.GetName()
	r := &request{obj: obj, params: map[string]string{}}
	r.class, _, _ = unstructured.NestedString(obj.Object, "spec", "provisioningClassName")
	params, _, _ := unstructured.NestedMap(obj.Object, "spec", "parameters")
	for k, v := range params {
		if s, ok := v.(string); ok {
			r.params[k] = s
		}
	}
	sets, _, _ := unstructured.NestedSlice(obj.Object, "spec", "podSets")
	for _, s := range sets {
		m, _ := s.(map[string]any)
		name, _, _ := unstructured.NestedString(m, "podTemplateRef", "name")
		count, _, err := unstructured.NestedInt64(m, "count")
		if err != nil {
			return nil, &BadRequestError{Request: id, Field: "spec.podSets.count", Err: err}
		}
		r.podSets = append(r.podSets, podSet{template: name, count: int(count)})
	}
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		var cond metav1.Condition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &cond); err != nil {
			return nil, &BadRequestError{Request: id, Field: "status.conditions", Err: err}
		}
		r.conditions = append(r.conditions, cond)
	}
	return r, nil
}

// id is the request's namespace/name.
func (r *request) id() string { return r.obj.GetNamespace() + "/" + r.obj.GetName() }

// is says whether condition t is True.
func (r *request) is(t string) bool { return apimeta.IsStatusConditionTrue(r.conditions, t) }

// since is when condition t last changed (zero when it is not set).
func (r *request) since(t string) time.Time {
	if c := apimeta.FindStatusCondition(r.conditions, t); c != nil {
		return c.LastTransitionTime.Time
	}
	return time.Time{}
}

// nodeCount is how many nodes the request asks for: one per pod.
func (r *request) nodeCount() int {
	n := 0
	for _, ps := range r.podSets {
		n += ps.count
	}
	return n
}

// maxRunDuration is the request's maxRunDurationSeconds, or GKE's default.
func (r *request) maxRunDuration() (time.Duration, error) {
	v, ok := r.params[ParamMaxRunDuration]
	if !ok {
		return DefaultMaxRunDuration, nil
	}
	s, err := strconv.Atoi(v)
	if err != nil || s <= 0 {
		if err == nil {
			err = fmt.Errorf("%d is not a positive number of seconds", s)
		}
		return 0, &BadRequestError{Request: r.id(), Field: "spec.parameters." + ParamMaxRunDuration, Err: err}
	}
	return time.Duration(s) * time.Second, nil
}

// set sets condition t on the request (its status, in memory), as the
// autoscaler does: the transition time changes with the status only.
func (r *request) set(t string, status metav1.ConditionStatus, reason, message string, now time.Time) {
	apimeta.SetStatusCondition(&r.conditions, metav1.Condition{
		Type: t, Status: status, Reason: reason, Message: message,
		ObservedGeneration: r.obj.GetGeneration(), LastTransitionTime: metav1.NewTime(now),
	})
}

// withStatus is the request's object with its conditions written back.
func (r *request) withStatus() (*unstructured.Unstructured, error) {
	obj := r.obj.DeepCopy()
	conds := make([]any, 0, len(r.conditions))
	for i := range r.conditions {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&r.conditions[i])
		if err != nil {
			return nil, err
		}
		conds = append(conds, m)
	}
	if err := unstructured.SetNestedSlice(obj.Object, conds, "status", "conditions"); err != nil {
		return nil, err
	}
	return obj, nil
}
