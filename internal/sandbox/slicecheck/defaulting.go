package slicecheck

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicerules"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Kueue's Topology Aware Scheduling annotations on a pod template: the
// level all pods of the pod set must share, the level each slice of
// SliceSize pods must share, and that size; the queue label of Kueue's
// jobs; and the annotations the webhook gives LeaderWorkerSets.
const (
	AnnotationTASRequired      = "kueue.x-k8s.io/podset-required-topology"
	AnnotationTASSliceRequired = "kueue.x-k8s.io/podset-slice-required-topology"
	AnnotationTASSliceSize     = "kueue.x-k8s.io/podset-slice-size"
	LabelQueueName             = "kueue.x-k8s.io/queue-name"
	AnnotationPodSetGroup      = "kueue.x-k8s.io/podset-group-name"
	AnnotationSkipTPUWebhook   = "cloud.google.com/skip-tpu-webhook-check"
	// lwsPodSetGroup groups a LeaderWorkerSet's leader and workers in one
	// topology request.
	lwsPodSetGroup = "lws-super-slice-group"
)

// sliceTemplateError is a workload the slice admission check's webhook
// refuses: the message says why, in the controller's words.
type sliceTemplateError struct{ msg string }

func (e *sliceTemplateError) Error() string { return e.msg }

func refuse(format string, args ...any) error {
	return &sliceTemplateError{fmt.Sprintf(format, args...)}
}

// webhookTopology parses a slice topology as the webhook does: three
// dimensions; a sub-slice shape (2x2x1, 2x2x2, 2x2x4, 2x4x4), or a
// super-slice of dimensions divisible by 4 in non-decreasing order; then
// the sandbox's tpu7x rules.
func webhookTopology(value string) (slicerules.Topology, error) {
	dims := strings.Split(value, "x")
	if len(dims) != 3 {
		return slicerules.Topology{}, refuse("invalid topology format: %s, expected 3 dimensions", value)
	}
	n := make([]int64, 3)
	for i, d := range dims {
		v, err := strconv.ParseInt(d, 10, 32)
		if err != nil {
			return slicerules.Topology{}, refuse("%v", err)
		}
		n[i] = v
	}
	if !slices.Contains([]string{"2x2x1", "2x2x2", "2x2x4", "2x4x4"}, value) {
		switch {
		case slices.Contains(n, 0):
			return slicerules.Topology{}, refuse("topology dimensions cannot be zero: %s", value)
		case n[0]%4 != 0 || n[1]%4 != 0 || n[2]%4 != 0:
			return slicerules.Topology{}, refuse("topology dimensions must be divisible by 4: %s", value)
		case n[0] > n[1] || n[1] > n[2]:
			return slicerules.Topology{}, refuse("topology dimensions must be in non-decreasing order: %s", value)
		}
	}
	t, err := slicerules.ParseTPU7x(value)
	if err != nil {
		return t, refuse("%v", err)
	}
	return t, nil
}

// chipsPerPod is the google.com/tpu its containers' limits ask for (the
// webhook reads limits only: chips only in requests count for nothing).
func chipsPerPod(tmpl map[string]any) int64 {
	containers, _, _ := unstructured.NestedSlice(tmpl, "spec", "containers")
	var total int64
	for _, c := range containers {
		cm, _ := c.(map[string]any)
		if q, found, _ := unstructured.NestedFieldNoCopy(cm, "resources", "limits", wellknown.ResourceTPU); found {
			total += quantityInt(q)
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

// setAnnotation sets one annotation of a pod template, overwriting it.
func setAnnotation(tmpl map[string]any, key, value string) {
	_ = unstructured.SetNestedField(tmpl, value, "metadata", "annotations", key)
}

// requireUsablePartition adds to every required node-affinity term (or to
// a new one) that the node's partition state label is HEALTHY or
// DEGRADED, unless the template already selects on that label, by node
// selector or node affinity.
func requireUsablePartition(tmpl map[string]any, stateLabel string) {
	if _, found, _ := unstructured.NestedString(tmpl, "spec", "nodeSelector", stateLabel); found {
		return
	}
	for _, e := range requiredExpressions(tmpl) {
		if e["key"] == stateLabel {
			return
		}
	}
	terms, _, _ := unstructured.NestedSlice(tmpl, "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
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
	_ = unstructured.SetNestedSlice(tmpl, terms, "spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
}

// defaultJobTemplate does to the pod template of a Job spec (spec holds
// "parallelism" and "template") what the webhook does: when the template
// asks for a slice (a topology and the tpu7x accelerator, by node selector
// or node affinity), it requires a usable partition and sets Kueue's
// Topology Aware Scheduling annotations (all pods in one block; each
// slice-size pods in one partition of the slice's shape), overwriting
// them. It refuses a template whose topology is not in its
// cloud.google.com/gke-tpu-slice-topology annotation or is not a valid
// one, a spec with no parallelism, and pods whose chips (limits) do not
// fill the slice's partitions (these two as "invalid <owner>: …", owner
// being e.g. `job "train"`). It reports whether the template asks for a
// slice.
func defaultJobTemplate(spec map[string]any, owner string) (bool, error) {
	tmpl, _, _ := unstructured.NestedMap(spec, "template")
	if tmpl == nil || !asksForSlice(tmpl) {
		return false, nil
	}
	value, _, _ := unstructured.NestedString(tmpl, "metadata", "annotations", wellknown.AnnotationSliceTopology)
	t, err := webhookTopology(value)
	if err != nil {
		return false, err
	}
	requireUsablePartition(tmpl, slicerules.PartitionStateLabel(t.PartitionShape()))
	p, found, _ := unstructured.NestedFieldNoCopy(spec, "parallelism")
	if !found || p == nil {
		return false, refuse("invalid %s: parallelism must be set for Sub-/SuperSlice workloads", owner)
	}
	sliceSize := quantityInt(p) / int64(t.Partitions())
	perSlice := int64(t.Chips() / t.Partitions())
	if got := chipsPerPod(tmpl) * sliceSize; got != perSlice {
		return false, refuse("invalid %s: configuration results in %d TPUs requested, but must be exactly %d TPUs (full utilization)", owner, got, perSlice)
	}
	setAnnotation(tmpl, AnnotationTASRequired, wellknown.LabelTopologyBlock)
	setAnnotation(tmpl, AnnotationTASSliceRequired, partitionLabelFor(t))
	setAnnotation(tmpl, AnnotationTASSliceSize, strconv.FormatInt(sliceSize, 10))
	return true, unstructured.SetNestedMap(spec, tmpl, "template")
}

// defaultSliceWorkload does to a Job (batch/v1), JobSet
// (jobset.x-k8s.io/v1alpha2), LeaderWorkerSet (leaderworkerset.x-k8s.io/v1)
// or StatefulSet (apps/v1), in place, what the webhook does, and reports
// whether anything may have changed. Jobs, JobSets and LeaderWorkerSets
// are defaulted only when they carry Kueue's queue label.
func defaultSliceWorkload(obj map[string]any) (bool, error) {
	kind, _ := obj["kind"].(string)
	name, _, _ := unstructured.NestedString(obj, "metadata", "name")
	queue, _, _ := unstructured.NestedString(obj, "metadata", "labels", LabelQueueName)
	if queue == "" && kind != "StatefulSet" {
		return false, nil
	}
	spec, _, _ := unstructured.NestedMap(obj, "spec")
	if spec == nil {
		return false, nil
	}
	var changed bool
	var err error
	switch kind {
	case "Job":
		changed, err = defaultJobTemplate(spec, fmt.Sprintf("job %q", name))
	case "JobSet":
		changed, err = defaultJobSet(spec, fmt.Sprintf("jobset %q", name))
	case "LeaderWorkerSet":
		changed, err = defaultLeaderWorkerSet(spec)
	case "StatefulSet":
		changed = defaultStatefulSet(spec)
	}
	if err != nil || !changed {
		return false, err
	}
	return true, unstructured.SetNestedMap(obj, spec, "spec")
}

// defaultJobSet defaults each replicated job's Job spec.
func defaultJobSet(spec map[string]any, owner string) (bool, error) {
	jobs, _, _ := unstructured.NestedSlice(spec, "replicatedJobs")
	changed := false
	for i, rj := range jobs {
		rjm, _ := rj.(map[string]any)
		jobSpec, _, _ := unstructured.NestedMap(rjm, "template", "spec")
		if jobSpec == nil {
			continue
		}
		c, err := defaultJobTemplate(jobSpec, owner)
		if err != nil {
			return false, err
		}
		if c {
			_ = unstructured.SetNestedMap(rjm, jobSpec, "template", "spec")
			jobs[i] = rjm
			changed = true
		}
	}
	if changed {
		return true, unstructured.SetNestedSlice(spec, jobs, "replicatedJobs")
	}
	return false, nil
}

func annotationOf(tmpl map[string]any, key string) string {
	v, _, _ := unstructured.NestedString(tmpl, "metadata", "annotations", key)
	return v
}

// defaultLeaderWorkerSet defaults a LeaderWorkerSet whose worker template
// (and leader template, when there is one) asks for a slice: both require
// a usable partition, skip GKE's TPU webhook check, and ask Kueue for all
// pods in one partition of the slice's shape; a leader and its workers
// form one pod set group.
func defaultLeaderWorkerSet(spec map[string]any) (bool, error) {
	worker, _, _ := unstructured.NestedMap(spec, "leaderWorkerTemplate", "workerTemplate")
	leader, hasLeader, _ := unstructured.NestedMap(spec, "leaderWorkerTemplate", "leaderTemplate")
	if worker == nil || !asksForSlice(worker) || (hasLeader && leader != nil && !asksForSlice(leader)) {
		return false, nil
	}
	t, err := webhookTopology(annotationOf(worker, wellknown.AnnotationSliceTopology))
	if err != nil {
		return false, err
	}
	for _, tmpl := range []map[string]any{worker, leader} {
		if tmpl == nil {
			continue
		}
		requireUsablePartition(tmpl, slicerules.PartitionStateLabel(t.PartitionShape()))
		setAnnotation(tmpl, AnnotationSkipTPUWebhook, "true")
		setAnnotation(tmpl, AnnotationTASRequired, partitionLabelFor(t))
		if leader != nil {
			setAnnotation(tmpl, AnnotationPodSetGroup, lwsPodSetGroup)
		}
	}
	if err := unstructured.SetNestedMap(spec, worker, "leaderWorkerTemplate", "workerTemplate"); err != nil {
		return false, err
	}
	if leader != nil {
		return true, unstructured.SetNestedMap(spec, leader, "leaderWorkerTemplate", "leaderTemplate")
	}
	return true, nil
}

// defaultStatefulSet gives a StatefulSet whose template asks for a slice a
// node selector on the slice's topology label, unless it has one.
func defaultStatefulSet(spec map[string]any) bool {
	tmpl, _, _ := unstructured.NestedMap(spec, "template")
	if tmpl == nil || !asksForSlice(tmpl) {
		return false
	}
	if _, found, _ := unstructured.NestedString(tmpl, "spec", "nodeSelector", wellknown.LabelSliceTopology); found {
		return false
	}
	_ = unstructured.SetNestedField(tmpl, templateTopology(tmpl), "spec", "nodeSelector", wellknown.LabelSliceTopology)
	return unstructured.SetNestedMap(spec, tmpl, "template") == nil
}
