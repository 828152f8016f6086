package slicecheck

import (
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// What the slice admission check reads of a pod template (of a Job, a
// JobSet's replicated job, a LeaderWorkerSet, a StatefulSet or a Workload's
// pod set) to know whether it asks for a slice, as the open-source
// controller reads it.

// sliceTopologyPattern is what a topology must look like for a template to
// ask for a slice (found anywhere in the value, as the controller matches).
var sliceTopologyPattern = regexp.MustCompile(`[0-9]+x[0-9]+x[0-9]+`)

// templateTopology is the slice topology a pod template asks for: its
// cloud.google.com/gke-tpu-slice-topology annotation, else the shape in
// a partition label (cloud.google.com/gke-tpu-partition-<shape>-id or
// -state) it selects on by node selector key or required node affinity.
func templateTopology(tmpl map[string]any) string {
	if v, _, _ := unstructured.NestedString(tmpl, "metadata", "annotations", wellknown.AnnotationSliceTopology); v != "" {
		return v
	}
	sel, _, _ := unstructured.NestedStringMap(tmpl, "spec", "nodeSelector")
	for k := range sel {
		if t := topologyInLabel(k); t != "" {
			return t
		}
	}
	for _, e := range requiredExpressions(tmpl) {
		key, _ := e["key"].(string)
		if t := topologyInLabel(key); t != "" {
			return t
		}
	}
	return ""
}

// topologyInLabel is the shape a partition label names, or "".
func topologyInLabel(key string) string {
	rest, ok := strings.CutPrefix(key, wellknown.PartitionLabelPrefix)
	if !ok {
		return ""
	}
	for _, suffix := range []string{"-state", "-id"} {
		if shape, ok := strings.CutSuffix(rest, suffix); ok {
			return shape
		}
	}
	return ""
}

// templateAccelerator is the TPU accelerator a pod template selects: by
// node selector, else by a required node affinity In of one value.
func templateAccelerator(tmpl map[string]any) string {
	if v, found, _ := unstructured.NestedString(tmpl, "spec", "nodeSelector", wellknown.LabelAccelerator); found {
		return v
	}
	for _, e := range requiredExpressions(tmpl) {
		values, _, _ := unstructured.NestedStringSlice(e, "values")
		if e["key"] == wellknown.LabelAccelerator && e["operator"] == "In" && len(values) == 1 {
			return values[0]
		}
	}
	return ""
}

// asksForSlice says whether a pod template asks for a slice: a topology
// of the form AxBxC and the tpu7x accelerator.
func asksForSlice(tmpl map[string]any) bool {
	return sliceTopologyPattern.MatchString(templateTopology(tmpl)) && templateAccelerator(tmpl) == slicerules.SliceType
}

// requiredExpressions are the match expressions of every required
// node-affinity term of a pod template.
func requiredExpressions(tmpl map[string]any) []map[string]any {
	terms, _, _ := unstructured.NestedSlice(tmpl, "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	var out []map[string]any
	for _, term := range terms {
		tm, _ := term.(map[string]any)
		exprs, _, _ := unstructured.NestedSlice(tm, "matchExpressions")
		for _, e := range exprs {
			if em, ok := e.(map[string]any); ok {
				out = append(out, em)
			}
		}
	}
	return out
}
