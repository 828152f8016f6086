package slicecheck

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// wlView is what the check reads of a Workload.
type wlView struct {
	obj                *unstructured.Unstructured
	namespace, name    string
	check              map[string]any // this controller's entry in status.admissionChecks
	podSets            []wlPodSet     // pod sets that ask for a slice and have an assignment
	quotaReserved      bool
	finished, evicted  bool
	inactive, deleting bool
}

// wlPodSet is one pod set that asks for a slice: its topology, its
// sub-groups (Jobs), and the partitions Topology Aware Scheduling assigned.
type wlPodSet struct {
	name       string
	topology   slicerules.Topology
	groups     int
	assignment *wlTopologyAssignment
}

// ConditionTrue reports whether the object has the condition typ with
// status True.
func ConditionTrue(obj *unstructured.Unstructured, typ string) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, cond := range conds {
		if m, _ := cond.(map[string]any); m["type"] == typ {
			return m["status"] == "True"
		}
	}
	return false
}

// view reads a Workload. It returns ok false when no AdmissionCheck of this
// controller applies to it.
func (c *Check) view(obj *unstructured.Unstructured) (wlView, bool, error) {
	v := wlView{obj: obj, namespace: obj.GetNamespace(), name: obj.GetName()}
	checks, _, _ := unstructured.NestedSlice(obj.Object, "status", "admissionChecks")
	for _, ch := range checks {
		m, _ := ch.(map[string]any)
		name, _ := m["name"].(string)
		if item, exists, _ := c.checks.GetByKey(name); exists {
			ac, isObj := item.(*unstructured.Unstructured)
			if !isObj {
				continue
			}
			if ctrl, _, _ := unstructured.NestedString(ac.Object, "spec", "controllerName"); ctrl == KueueSliceController {
				v.check = m
				break
			}
		}
	}
	if v.check == nil {
		return v, false, nil
	}
	v.quotaReserved = ConditionTrue(obj, "QuotaReserved")
	v.finished = ConditionTrue(obj, "Finished")
	v.evicted = ConditionTrue(obj, "Evicted")
	if active, found, _ := unstructured.NestedBool(obj.Object, "spec", "active"); found && !active {
		v.inactive = true
	}
	v.deleting = obj.GetDeletionTimestamp() != nil

	specSets, _, _ := unstructured.NestedSlice(obj.Object, "spec", "podSets")
	assignments, _, _ := unstructured.NestedSlice(obj.Object, "status", "admission", "podSetAssignments")
	for _, ps := range specSets {
		psm, _ := ps.(map[string]any)
		tmpl, _, _ := unstructured.NestedMap(psm, "template")
		value, ok := sliceTopologyOf(tmpl)
		if !ok {
			continue
		}
		t, err := slicerules.ParseTPU7x(value)
		if err != nil {
			return v, true, fmt.Errorf("pod set %v: %w", psm["name"], err)
		}
		p := wlPodSet{topology: t, groups: 1}
		p.name, _ = psm["name"].(string)
		if n, found, _ := unstructured.NestedInt64(psm, "topologyRequest", "subGroupCount"); found && n > 0 {
			p.groups = int(n)
		}
		for _, a := range assignments {
			am, _ := a.(map[string]any)
			if am["name"] != p.name {
				continue
			}
			if ta, found, _ := unstructured.NestedMap(am, "topologyAssignment"); found {
				var parsed wlTopologyAssignment
				if err := runtime.DefaultUnstructuredConverter.FromUnstructured(ta, &parsed); err != nil {
					return v, true, fmt.Errorf("pod set %s: reading its topology assignment: %w", p.name, err)
				}
				p.assignment = &parsed
			}
		}
		v.podSets = append(v.podSets, p)
	}
	return v, true, nil
}

// ownSlices are the Slices the check made for the Workload.
func (c *Check) ownSlices(namespace, name string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, item := range c.slices.List() {
		u, _ := item.(*unstructured.Unstructured)
		a := u.GetAnnotations()
		if a[wellknown.AnnotationOwnerWorkloadNamespace] == namespace && a[wellknown.AnnotationOwnerWorkloadName] == name {
			out = append(out, u)
		}
	}
	slices.SortFunc(out, func(a, b *unstructured.Unstructured) int { return strings.Compare(a.GetName(), b.GetName()) })
	return out
}
