package slicecheck

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Kueue's Topology Aware Scheduling annotations on a pod template: the
// level all pods of the pod set must share, the level each slice of
// SliceSize pods must share, and that size.
const (
	AnnotationTASRequired      = "kueue.x-k8s.io/podset-required-topology"
	AnnotationTASSliceRequired = "kueue.x-k8s.io/podset-slice-required-topology"
	AnnotationTASSliceSize     = "kueue.x-k8s.io/podset-slice-size"
)

// sliceTemplateError is a pod template the slice admission check's webhook
// refuses: the message says what to write.
type sliceTemplateError struct{ msg string }

func (e *sliceTemplateError) Error() string { return e.msg }

// sliceTopologyOf returns the slice topology a pod template asks for, and
// whether the template is one GKE's slice admission check handles: it
// carries the cloud.google.com/gke-tpu-slice-topology annotation and selects
// tpu7x nodes.
func sliceTopologyOf(tmpl map[string]any) (string, bool) {
	topo, _, _ := unstructured.NestedString(tmpl, "metadata", "annotations", wellknown.AnnotationSliceTopology)
	accel, _, _ := unstructured.NestedString(tmpl, "spec", "nodeSelector", wellknown.LabelAccelerator)
	return topo, topo != "" && accel == slicerules.SliceType
}

// defaultSliceTemplate does to one pod template (of pods pods) what GKE's
// slice admission check webhook does to a Job's or JobSet's pod templates
// that ask for a slice: it turns the slice-topology annotation into Kueue's
// Topology Aware Scheduling annotations (all pods in one reservation block;
// each slice of pods in one partition of the slice's shape) and requires
// nodes of a usable partition (HEALTHY or DEGRADED), keeping whatever the
// template already says of either. It refuses a topology that breaks a
// tpu7x rule and pods whose chips do not add up to the slice's. It reports
// whether it changed the template.
func defaultSliceTemplate(tmpl map[string]any, pods int64) (bool, error) {
	value, ok := sliceTopologyOf(tmpl)
	if !ok {
		return false, nil
	}
	t, err := slicerules.ParseTPU7x(value)
	if err != nil {
		return false, &sliceTemplateError{fmt.Sprintf("annotation %s: %v", wellknown.AnnotationSliceTopology, err)}
	}
	perPod := chipsPerPod(tmpl)
	if perPod == 0 && hasResourceClaims(tmpl) {
		perPod = slicerules.ChipsPerHost // DRA: a claim takes all of a host's chips
	}
	if pods*perPod != int64(t.Chips()) {
		return false, &sliceTemplateError{fmt.Sprintf(
			"a %s slice has %d chips, and %d pod(s) × %d %s per pod = %d: run %d pods (one per host) with %d %s each",
			t, t.Chips(), pods, perPod, wellknown.ResourceTPU, pods*perPod, t.Hosts(), slicerules.ChipsPerHost, wellknown.ResourceTPU)}
	}
	sliceSize := pods / int64(t.Partitions())
	changed := false
	for key, v := range map[string]string{
		AnnotationTASRequired:      wellknown.LabelTopologyBlock,
		AnnotationTASSliceRequired: partitionLabelFor(t),
		AnnotationTASSliceSize:     strconv.FormatInt(sliceSize, 10),
	} {
		if have, found, _ := unstructured.NestedString(tmpl, "metadata", "annotations", key); !found || have == "" {
			if err := unstructured.SetNestedField(tmpl, v, "metadata", "annotations", key); err != nil {
				return false, err
			}
			changed = true
		}
	}
	added, err := requireUsablePartition(tmpl, slicerules.PartitionStateLabel(t.PartitionShape()))
	return changed || added, err
}

// chipsPerPod is the google.com/tpu its containers ask for (limits, else
// requests).
func chipsPerPod(tmpl map[string]any) int64 {
	containers, _, _ := unstructured.NestedSlice(tmpl, "spec", "containers")
	var total int64
	for _, c := range containers {
		cm, _ := c.(map[string]any)
		for _, kind := range []string{"limits", "requests"} {
			if q, found, _ := unstructured.NestedFieldNoCopy(cm, "resources", kind, wellknown.ResourceTPU); found {
				total += quantityInt(q)
				break
			}
		}
	}
	return total
}

func quantityInt(q any) int64 {
	switch v := q.(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	case string:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	}
	return 0
}

func hasResourceClaims(tmpl map[string]any) bool {
	claims, _, _ := unstructured.NestedSlice(tmpl, "spec", "resourceClaims")
	return len(claims) > 0
}

// requireUsablePartition adds to every required node-affinity term (or to
// a new one) that the node's partition state label is HEALTHY or DEGRADED,
// unless the template already selects on that label.
func requireUsablePartition(tmpl map[string]any, stateLabel string) (bool, error) {
	if _, found, _ := unstructured.NestedString(tmpl, "spec", "nodeSelector", stateLabel); found {
		return false, nil
	}
	terms, _, _ := unstructured.NestedSlice(tmpl, "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	for _, term := range terms {
		tm, _ := term.(map[string]any)
		exprs, _, _ := unstructured.NestedSlice(tm, "matchExpressions")
		for _, e := range exprs {
			if em, _ := e.(map[string]any); em["key"] == stateLabel {
				return false, nil
			}
		}
	}
	req := map[string]any{"key": stateLabel, "operator": "In", "values": []any{wellknown.PartitionHealthy, wellknown.PartitionDegraded}}
	if len(terms) == 0 {
		terms = []any{map[string]any{}}
	}
	for i, term := range terms {
		tm, _ := term.(map[string]any)
		if tm == nil {
			tm = map[string]any{}
		}
		exprs, _, _ := unstructured.NestedSlice(tm, "matchExpressions")
		tm["matchExpressions"] = append(exprs, req)
		terms[i] = tm
	}
	return true, unstructured.SetNestedSlice(tmpl, terms, "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
}

// defaultSliceWorkload applies defaultSliceTemplate to the pod templates of
// a Job (batch/v1) or JobSet (jobset.x-k8s.io), in place, and reports
// whether anything changed.
func defaultSliceWorkload(obj map[string]any) (bool, error) {
	kind, _ := obj["kind"].(string)
	switch kind {
	case "Job":
		return defaultJobTemplate(obj)
	case "JobSet":
		jobs, _, _ := unstructured.NestedSlice(obj, "spec", "replicatedJobs")
		changed := false
		for i, rj := range jobs {
			rjm, _ := rj.(map[string]any)
			job, _, _ := unstructured.NestedMap(rjm, "template")
			if job == nil {
				continue
			}
			c, err := defaultJobTemplate(job)
			if err != nil {
				name, _ := rjm["name"].(string)
				return false, fmt.Errorf("replicated job %s: %w", name, err)
			}
			if c {
				rjm["template"] = job
				jobs[i] = rjm
				changed = true
			}
		}
		if changed {
			return true, unstructured.SetNestedSlice(obj, jobs, "spec", "replicatedJobs")
		}
	}
	return false, nil
}

// defaultJobTemplate defaults the pod template of a Job spec (obj holds
// "spec"); its pods are its parallelism (1 when unset).
func defaultJobTemplate(obj map[string]any) (bool, error) {
	tmpl, _, _ := unstructured.NestedMap(obj, "spec", "template")
	if tmpl == nil {
		return false, nil
	}
	pods := int64(1)
	if p, found, _ := unstructured.NestedFieldNoCopy(obj, "spec", "parallelism"); found {
		pods = quantityInt(p)
	}
	changed, err := defaultSliceTemplate(tmpl, pods)
	if err != nil || !changed {
		return false, err
	}
	return true, unstructured.SetNestedMap(obj, tmpl, "spec", "template")
}
