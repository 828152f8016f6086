package slicecheck

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sjson "k8s.io/apimachinery/pkg/util/json"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// podTemplate is a pod template on a tpu7x slice of topo (annotation),
// 4 chips per pod in limits; extra is added to its spec.
func podTemplate(t *testing.T, topo, extra string) map[string]any {
	t.Helper()
	s := `{"metadata":{"annotations":{"cloud.google.com/gke-tpu-slice-topology":"` + topo + `"}},
		"spec":{"nodeSelector":{"cloud.google.com/gke-tpu-accelerator":"tpu7x"},
		"containers":[{"name":"w","resources":{"limits":{"google.com/tpu":4}}}]` + extra + `}}`
	return decode(t, s)
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := k8sjson.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// job is a Job of pods pods (no parallelism when pods < 0) of tmpl in
// Kueue's queue q ("" for none).
func job(t *testing.T, q string, pods int, tmpl map[string]any) map[string]any {
	t.Helper()
	spec := map[string]any{"template": tmpl}
	if pods >= 0 {
		spec["parallelism"] = int64(pods)
	}
	obj := map[string]any{"apiVersion": "batch/v1", "kind": "Job", "metadata": map[string]any{"name": "train", "namespace": "team"}, "spec": spec}
	if q != "" {
		_ = unstructured.SetNestedField(obj, q, "metadata", "labels", LabelQueueName)
	}
	return obj
}

func annotation(m map[string]any, key string) string {
	v, _, _ := unstructured.NestedString(m, "metadata", "annotations", key)
	return v
}

func healthTerms(m map[string]any) []any {
	terms, _, _ := unstructured.NestedSlice(m, "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	return terms
}

func jobTemplate(obj map[string]any) map[string]any {
	m, _, _ := unstructured.NestedMap(obj, "spec", "template")
	return m
}

func jsonOf(v any) string { b, _ := json.Marshal(v); return string(b) }

// A Job of a queue on a super-slice: all pods in a block, each 16 in a
// 4x4x4 partition, on usable partitions; a sub-slice: its own shape's
// partition; an existing podset-slice-size is overwritten.
func TestDefaultJob(t *testing.T) {
	t.Parallel()
	obj := job(t, "q", 32, podTemplate(t, "4x4x8", ""))
	if changed, err := defaultSliceWorkload(obj); err != nil || !changed {
		t.Fatalf("4x4x8: %v, %v", changed, err)
	}
	m := jobTemplate(obj)
	if annotation(m, AnnotationTASRequired) != wellknown.LabelTopologyBlock || annotation(m, AnnotationTASSliceRequired) != wellknown.LabelPartitionID ||
		annotation(m, AnnotationTASSliceSize) != "16" {
		t.Errorf("4x4x8 annotations: %v", m["metadata"])
	}
	if terms := healthTerms(m); len(terms) != 1 || !strings.Contains(jsonOf(terms), `"key":"cloud.google.com/gke-tpu-partition-4x4x4-state","operator":"In","values":["HEALTHY","DEGRADED"]`) {
		t.Errorf("4x4x8 affinity: %s", jsonOf(terms))
	}

	tmpl := podTemplate(t, "2x2x2", `,"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"team","operator":"In","values":["a"]}]}]}}}`)
	setAnnotation(tmpl, AnnotationTASSliceSize, "7")
	obj = job(t, "q", 2, tmpl)
	if _, err := defaultSliceWorkload(obj); err != nil {
		t.Fatal(err)
	}
	m = jobTemplate(obj)
	if annotation(m, AnnotationTASSliceRequired) != "cloud.google.com/gke-tpu-partition-2x2x2-id" || annotation(m, AnnotationTASSliceSize) != "2" {
		t.Errorf("2x2x2 annotations: %v; want the 2x2x2 partition and slice size 2 (the 7 overwritten)", m["metadata"])
	}
	if s := jsonOf(healthTerms(m)); !strings.Contains(s, `"key":"team"`) || !strings.Contains(s, "gke-tpu-partition-2x2x2-state") {
		t.Errorf("2x2x2 affinity: %s", s)
	}
}

// The accelerator given by node affinity asks for a slice as a node
// selector does.
func TestDefaultJobAcceleratorByAffinity(t *testing.T) {
	t.Parallel()
	tmpl := decode(t, `{"metadata":{"annotations":{"cloud.google.com/gke-tpu-slice-topology":"4x4x4"}},
		"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[
			{"key":"cloud.google.com/gke-tpu-accelerator","operator":"In","values":["tpu7x"]}]}]}}},
		"containers":[{"name":"w","resources":{"limits":{"google.com/tpu":4}}}]}}`)
	obj := job(t, "q", 16, tmpl)
	if changed, err := defaultSliceWorkload(obj); err != nil || !changed {
		t.Fatalf("by affinity: %v, %v; want mutated", changed, err)
	}
	if got := annotation(jobTemplate(obj), AnnotationTASSliceSize); got != "16" {
		t.Errorf("slice size %q; want 16", got)
	}
}

// What the webhook refuses, in the controller's words.
func TestDefaultJobRefusals(t *testing.T) {
	t.Parallel()
	requestsOnly := decode(t, `{"metadata":{"annotations":{"cloud.google.com/gke-tpu-slice-topology":"4x4x4"}},
		"spec":{"nodeSelector":{"cloud.google.com/gke-tpu-accelerator":"tpu7x"},"containers":[{"name":"w","resources":{"requests":{"google.com/tpu":4}}}]}}`)
	selectorOnly := decode(t, `{"spec":{"nodeSelector":{"cloud.google.com/gke-tpu-accelerator":"tpu7x","cloud.google.com/gke-tpu-partition-4x4x4-id":"p1"},
		"containers":[{"name":"w","resources":{"limits":{"google.com/tpu":4}}}]}}`)
	for name, tc := range map[string]struct {
		obj  map[string]any
		want string
	}{
		"chips only in requests":               {job(t, "q", 16, requestsOnly), `invalid job "train": configuration results in 0 TPUs requested, but must be exactly 64 TPUs (full utilization)`},
		"topology only as a node-selector key": {job(t, "q", 16, selectorOnly), "invalid topology format: , expected 3 dimensions"},
		"no parallelism":                       {job(t, "q", -1, podTemplate(t, "4x4x4", "")), `invalid job "train": parallelism must be set for Sub-/SuperSlice workloads`},
		"too few pods":                         {job(t, "q", 16, podTemplate(t, "4x4x8", "")), `invalid job "train": configuration results in 32 TPUs requested, but must be exactly 64 TPUs (full utilization)`},
		"dimensions not divisible by 4":        {job(t, "q", 24, podTemplate(t, "4x4x6", "")), "topology dimensions must be divisible by 4: 4x4x6"},
	} {
		_, err := defaultSliceWorkload(tc.obj)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v; want %q", name, err, tc.want)
		}
	}
	// Outside Kueue's queues, nothing is checked or changed.
	if changed, err := defaultSliceWorkload(job(t, "", 16, requestsOnly)); changed || err != nil {
		t.Errorf("no queue label: %v, %v; want left alone", changed, err)
	}
}

func TestDefaultJobSet(t *testing.T) {
	t.Parallel()
	js := `{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","metadata":{"name":"js","labels":{"kueue.x-k8s.io/queue-name":"q"}},"spec":{"replicatedJobs":[
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
	noParallelism := strings.Replace(js, `"parallelism":16,`, ``, 1)
	if _, err := sliceDefaultingPatch([]byte(noParallelism)); err == nil || err.Error() != `invalid jobset "js": parallelism must be set for Sub-/SuperSlice workloads` {
		t.Errorf("no parallelism: %v", err)
	}
}

func TestDefaultLeaderWorkerSet(t *testing.T) {
	t.Parallel()
	worker := podTemplate(t, "4x4x4", "")
	leader := podTemplate(t, "4x4x4", "")
	obj := decode(t, `{"apiVersion":"leaderworkerset.x-k8s.io/v1","kind":"LeaderWorkerSet","metadata":{"name":"lws","labels":{"kueue.x-k8s.io/queue-name":"q"}},
		"spec":{"leaderWorkerTemplate":{"size":16,"workerTemplate":`+jsonOf(worker)+`,"leaderTemplate":`+jsonOf(leader)+`}}}`)
	if changed, err := defaultSliceWorkload(obj); err != nil || !changed {
		t.Fatalf("lws: %v, %v", changed, err)
	}
	for _, which := range []string{"workerTemplate", "leaderTemplate"} {
		m, _, _ := unstructured.NestedMap(obj, "spec", "leaderWorkerTemplate", which)
		if annotation(m, AnnotationTASRequired) != wellknown.LabelPartitionID || annotation(m, AnnotationSkipTPUWebhook) != "true" ||
			annotation(m, AnnotationPodSetGroup) != "lws-super-slice-group" || len(healthTerms(m)) != 1 {
			t.Errorf("%s: %s", which, jsonOf(m))
		}
	}
}

func TestDefaultStatefulSet(t *testing.T) {
	t.Parallel()
	obj := decode(t, `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"sts"},"spec":{"replicas":16,"template":`+jsonOf(podTemplate(t, "4x4x4", ""))+`}}`)
	if changed, err := defaultSliceWorkload(obj); err != nil || !changed {
		t.Fatalf("sts: %v, %v", changed, err)
	}
	if got, _, _ := unstructured.NestedString(obj, "spec", "template", "spec", "nodeSelector", wellknown.LabelSliceTopology); got != "4x4x4" {
		t.Errorf("node selector %s = %q; want 4x4x4", wellknown.LabelSliceTopology, got)
	}
}

// The webhook answers a refusal 403 Forbidden with the controller's words.
func TestWebhookRefusalIsForbidden(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(handleSliceDefaulting))
	t.Cleanup(srv.Close)
	obj := job(t, "q", 8, podTemplate(t, "4x4x4", ""))
	review := map[string]any{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": map[string]any{"uid": "u1", "object": obj}}
	resp, err := http.Post(srv.URL, "application/json", bytes.NewReader([]byte(jsonOf(review))))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var got admissionReview
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	r := got.Response
	if r == nil || r.Allowed || r.Result == nil || r.Result.Code != http.StatusForbidden ||
		r.Result.Message != `invalid job "train": configuration results in 32 TPUs requested, but must be exactly 64 TPUs (full utilization)` {
		t.Errorf("response %+v", r)
	}
}
