package slicecheck

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sjson "k8s.io/apimachinery/pkg/util/json"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func podTemplate(t *testing.T, topo, extra string) map[string]any {
	t.Helper()
	s := `{"metadata":{"annotations":{"cloud.google.com/gke-tpu-slice-topology":"` + topo + `"}},
		"spec":{"nodeSelector":{"cloud.google.com/gke-tpu-accelerator":"tpu7x"},
		"containers":[{"name":"w","resources":{"limits":{"google.com/tpu":4}}}]` + extra + `}}`
	var m map[string]any
	if err := k8sjson.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func annotation(m map[string]any, key string) string {
	v, _, _ := unstructured.NestedString(m, "metadata", "annotations", key)
	return v
}

func healthTerms(m map[string]any) []any {
	terms, _, _ := unstructured.NestedSlice(m, "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	return terms
}

func TestDefaultSliceTemplate(t *testing.T) {
	t.Parallel()
	// A super-slice: all pods in a block, each 16 in a 4x4x4 partition.
	m := podTemplate(t, "4x4x8", "")
	if changed, err := defaultSliceTemplate(m, 32); err != nil || !changed {
		t.Fatalf("4x4x8: %v, %v", changed, err)
	}
	if annotation(m, AnnotationTASRequired) != wellknown.LabelTopologyBlock || annotation(m, AnnotationTASSliceRequired) != wellknown.LabelPartitionID ||
		annotation(m, AnnotationTASSliceSize) != "16" {
		t.Errorf("4x4x8 annotations: %v", m["metadata"])
	}
	terms := healthTerms(m)
	if len(terms) != 1 || !strings.Contains(jsonOf(terms), `"key":"cloud.google.com/gke-tpu-partition-4x4x4-state","operator":"In","values":["HEALTHY","DEGRADED"]`) {
		t.Errorf("4x4x8 affinity: %s", jsonOf(terms))
	}
	// Defaulting twice changes nothing.
	if changed, err := defaultSliceTemplate(m, 32); err != nil || changed {
		t.Errorf("again: %v, %v; want unchanged", changed, err)
	}

	// A sub-slice: its own shape's partition, all pods in one slice; an
	// existing affinity term gets the health requirement; an annotation
	// already set stays.
	m = podTemplate(t, "2x2x2", `,"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"team","operator":"In","values":["a"]}]}]}}}`)
	_ = unstructured.SetNestedField(m, "custom", "metadata", "annotations", AnnotationTASRequired)
	if _, err := defaultSliceTemplate(m, 2); err != nil {
		t.Fatal(err)
	}
	if annotation(m, AnnotationTASRequired) != "custom" || annotation(m, AnnotationTASSliceRequired) != "cloud.google.com/gke-tpu-partition-2x2x2-id" || annotation(m, AnnotationTASSliceSize) != "2" {
		t.Errorf("2x2x2 annotations: %v", m["metadata"])
	}
	if s := jsonOf(healthTerms(m)); !strings.Contains(s, `"key":"team"`) || !strings.Contains(s, "gke-tpu-partition-2x2x2-state") {
		t.Errorf("2x2x2 affinity: %s", s)
	}

	// Chips that do not add up, and a broken topology, are refused.
	var refused *sliceTemplateError
	if _, err := defaultSliceTemplate(podTemplate(t, "4x4x8", ""), 16); err == nil || !asTemplateError(err, &refused) ||
		!strings.Contains(err.Error(), "a 4x4x8 slice has 128 chips, and 16 pod(s) × 4 google.com/tpu per pod = 64: run 32 pods") {
		t.Errorf("too few pods: %v", err)
	}
	if _, err := defaultSliceTemplate(podTemplate(t, "4x4x6", ""), 24); err == nil || !asTemplateError(err, &refused) {
		t.Errorf("4x4x6: %v; want refused", err)
	}
	// Templates that do not ask for a slice are left alone.
	plain := podTemplate(t, "4x4x4", "")
	delete(plain["metadata"].(map[string]any), "annotations")
	if changed, err := defaultSliceTemplate(plain, 3); changed || err != nil {
		t.Errorf("no slice annotation: %v, %v", changed, err)
	}
}

func asTemplateError(err error, target **sliceTemplateError) bool { return errors.As(err, target) }

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestSliceDefaultingPatchJobSet(t *testing.T) {
	t.Parallel()
	js := `{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"js"},"spec":{"replicatedJobs":[
		{"name":"slice-job","replicas":2,"template":{"spec":{"parallelism":16,"completions":16,"template":` + jsonOf(podTemplate(t, "4x4x4", "")) + `}}},
		{"name":"driver","replicas":1,"template":{"spec":{"template":{"spec":{"containers":[{"name":"d"}]}}}}}]}}`
	patch, err := sliceDefaultingPatch([]byte(js))
	if err != nil || patch == nil {
		t.Fatalf("patch = %s, %v", patch, err)
	}
	s := string(patch)
	if !strings.Contains(s, `"op":"replace","path":"/spec"`) || strings.Count(s, AnnotationTASSliceSize) != 1 || !strings.Contains(s, `"kueue.x-k8s.io/podset-slice-size":"16"`) {
		t.Errorf("patch: %s", s)
	}
	bad := strings.Replace(js, `"parallelism":16`, `"parallelism":8`, 1)
	if _, err := sliceDefaultingPatch([]byte(bad)); err == nil || !strings.Contains(err.Error(), "replicated job slice-job:") {
		t.Errorf("8 pods: %v; want refused naming the replicated job", err)
	}
}
