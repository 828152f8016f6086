package slicecheck

import (
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// wlView is what the check reads of a Workload.
type wlView struct {
	obj             *unstructured.Unstructured
	namespace, name string
	check           map[string]any // this controller's entry in status.admissionChecks
	podSets         []wlPodSet     // pod sets that ask for a slice
	owner           *metav1.OwnerReference
	quotaReserved   bool
	// finalize says why the Workload's Slices go ("" while it runs): it is
	// deleted, finished, evicted, inactive, or has no owner the check
	// supports.
	finalize string
}

// wlPodSet is one pod set that asks for a slice: its topology, its
// sub-groups (Jobs), and the partitions Topology Aware Scheduling assigned
// (partitions nil and problem set when the assignment does not name nodes
// of partitions the check can read).
type wlPodSet struct {
	name       string
	topology   slicerules.Topology
	groups     int
	requested  bool // the pod set has a topology request
	assigned   bool // the admission has a topology assignment for it
	partitions []string
	problem    string
}

// makesSlices says whether the check makes Slices for the pod set.
func (p wlPodSet) makesSlices() bool { return p.assigned && p.problem == "" && p.requested }

// ConditionTrue reports whether the object has the condition typ with
// status True.
func ConditionTrue(obj *unstructured.Unstructured, typ string) bool {
	return conditionOf(obj, typ)["status"] == "True"
}

// conditionOf is the object's condition of type typ, or nil.
func conditionOf(obj *unstructured.Unstructured, typ string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, cond := range conds {
		if m, _ := cond.(map[string]any); m["type"] == typ {
			return m
		}
	}
	return nil
}

// Owners whose Workloads the check serves.
const (
	lwsAPIVersion = "leaderworkerset.x-k8s.io/v1"
	lwsLeader     = "leader" // a LeaderWorkerSet's leader pod set shares its workers' slice
)

// workloadOwner is the Job, JobSet or LeaderWorkerSet that owns a
// Workload, or nil.
func workloadOwner(obj *unstructured.Unstructured) *metav1.OwnerReference {
	if o := metav1.GetControllerOf(obj); o != nil {
		return o
	}
	refs := obj.GetOwnerReferences()
	for i := range refs {
		if k := refs[i].Kind; k == "Job" || k == "JobSet" || k == "LeaderWorkerSet" {
			return &refs[i]
		}
	}
	return nil
}

func supportedOwner(o *metav1.OwnerReference) bool {
	if o == nil {
		return false
	}
	switch {
	case o.Kind == "Job" && o.APIVersion == "batch/v1",
		o.Kind == "JobSet" && o.APIVersion == "jobset.x-k8s.io/v1alpha2",
		o.Kind == "LeaderWorkerSet" && o.APIVersion == lwsAPIVersion:
		return true
	}
	return false
}

// view reads a Workload. It returns ok false when no AdmissionCheck of this
// controller applies to it.
func (c *Check) view(obj *unstructured.Unstructured) (wlView, bool) {
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
	v.owner = workloadOwner(obj)
	v.quotaReserved = ConditionTrue(obj, "QuotaReserved")
	active, found, _ := unstructured.NestedBool(obj.Object, "spec", "active")
	switch {
	case obj.GetDeletionTimestamp() != nil:
		v.finalize = "it has been deleted"
	case ConditionTrue(obj, "Finished"):
		v.finalize = "it has finished"
	case ConditionTrue(obj, "Evicted"):
		v.finalize = "it was evicted"
	case found && !active:
		v.finalize = "it is no longer active"
	case v.owner == nil:
		v.finalize = "it has no owner"
	case !supportedOwner(v.owner):
		v.finalize = "its owner is a " + v.owner.Kind
	}

	v.podSets = c.slicePodSets(obj, v.owner)
	return v, v.check != nil
}

// slicePodSets are the pod sets of a Workload that ask for a slice, with
// what TAS assigned them (a LeaderWorkerSet's leader shares its workers'
// slice and has none of its own).
func (c *Check) slicePodSets(obj *unstructured.Unstructured, owner *metav1.OwnerReference) []wlPodSet {
	var out []wlPodSet
	specSets, _, _ := unstructured.NestedSlice(obj.Object, "spec", "podSets")
	assignments, _, _ := unstructured.NestedSlice(obj.Object, "status", "admission", "podSetAssignments")
	for _, ps := range specSets {
		psm, _ := ps.(map[string]any)
		tmpl, _, _ := unstructured.NestedMap(psm, "template")
		if !asksForSlice(tmpl) {
			continue
		}
		p := wlPodSet{groups: 1}
		p.name, _ = psm["name"].(string)
		if owner != nil && owner.Kind == "LeaderWorkerSet" && p.name == lwsLeader {
			continue
		}
		tr, found, _ := unstructured.NestedMap(psm, "topologyRequest")
		p.requested = found && tr != nil
		if n, found, _ := unstructured.NestedInt64(psm, "topologyRequest", "subGroupCount"); found && n > 0 {
			p.groups = int(n)
		}
		t, err := slicerules.ParseTPU7x(templateTopology(tmpl))
		if err != nil {
			p.problem = err.Error()
		}
		p.topology = t
		for _, a := range assignments {
			am, _ := a.(map[string]any)
			if am["name"] != p.name {
				continue
			}
			ta, found, _ := unstructured.NestedMap(am, "topologyAssignment")
			if !found {
				continue
			}
			p.assigned = true
			if p.problem != "" {
				continue
			}
			var parsed wlTopologyAssignment
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(ta, &parsed); err != nil {
				p.problem = "reading its topology assignment: " + err.Error()
				continue
			}
			if p.partitions, err = assignedPartitions(parsed, partitionLabelFor(p.topology), c.nodeLabels); err != nil {
				p.problem = err.Error()
			}
		}
		out = append(out, p)
	}
	return out
}

// skipReason says why the check leaves a running Workload alone ("" when
// it makes Slices for it): it asks for no slice, has no quota or no
// topology assignment yet, or an assignment that does not name nodes of
// partitions.
func (v wlView) skipReason() string {
	switch {
	case len(v.podSets) == 0:
		return "it has no pod set that asks for a slice"
	case !v.quotaReserved:
		return "it has no quota reservation"
	}
	assigned := false
	for _, p := range v.podSets {
		if p.assigned {
			assigned = true
			if p.problem != "" {
				return fmt.Sprintf("the topology assignment of pod set %s is not one of partitions: %s", p.name, p.problem)
			}
		}
	}
	if !assigned {
		return "it has no topology assignment"
	}
	return ""
}

// desiredSlices is how many Slices the Workload's assignment calls for.
func (v wlView) desiredSlices() int {
	n := 0
	for _, p := range v.podSets {
		if p.makesSlices() {
			n += p.groups
		}
	}
	return n
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
