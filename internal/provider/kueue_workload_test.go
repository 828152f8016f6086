package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Helpers for workloads on the Kueue + TAS path: the real Kueue queues and
// admits them, the sandbox's slice admission check makes their Slices.

// kueueNamespace makes a namespace for a test's LocalQueue (deleted after
// the test, with what is in it).
func kueueNamespace(t *testing.T, prefix string) string {
	t.Helper()
	kube, _, _ := kubeClients(t)
	ns := fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1_000_000)
	if _, err := kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = kube.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	return ns
}

// kueueJob is a Job on the Kueue path: in LocalQueue queue, one pod per
// host of a slice of topo, 4 chips each, each pod running for runFor.
func kueueJob(ns, name, queue, topo string, runFor time.Duration) *batchv1.Job {
	t, _ := topology.ParseTPU7x(topo)
	pods := int32(t.Hosts())
	tpu := resource.MustParse("4")
	run := runFor.String()
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{kueue.LabelQueueName: queue}},
		Spec: batchv1.JobSpec{
			Parallelism: &pods, Completions: &pods, CompletionMode: ptrTo(batchv1.IndexedCompletion), BackoffLimit: ptrTo(int32(0)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
					wellknown.AnnotationSliceTopology:               topo,
					"pod-complete.stage.kwok.x-k8s.io/delay":        run,
					"pod-complete.stage.kwok.x-k8s.io/jitter-delay": run,
				}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					NodeSelector:  map[string]string{wellknown.LabelAccelerator: topology.SliceType},
					Containers: []corev1.Container{{
						Name: "worker", Image: "python:3.12",
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{wellknown.ResourceTPU: tpu},
							Limits:   corev1.ResourceList{wellknown.ResourceTPU: tpu},
						},
					}},
				},
			},
		},
	}
}

func ptrTo[T any](v T) *T { return &v }

// submitKueueJob creates the Job (deleted after the test).
func submitKueueJob(t *testing.T, job *batchv1.Job) {
	t.Helper()
	kube, _, _ := kubeClients(t)
	if _, err := kube.BatchV1().Jobs(job.Namespace).Create(context.Background(), job, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating Job %s/%s: %v", job.Namespace, job.Name, err)
	}
	t.Cleanup(func() {
		bg := metav1.DeletePropagationBackground
		_ = kube.BatchV1().Jobs(job.Namespace).Delete(context.Background(), job.Name, metav1.DeleteOptions{PropagationPolicy: &bg})
	})
}

// kueueWorkload is what a test reads of a Job's Workload.
type kueueWorkload struct {
	Name       string
	Admitted   bool
	Conditions map[string]string // type → "status: reason: message"
	Check      string            // the slice check's "state: message"
	Slices     []string          // the Slices the check made for it
}

// readKueueWorkload reads the Workload Kueue made for the Job (or "JobSet/name")
// job in ns ("" when none yet) and the Slices of it.
func readKueueWorkload(t *testing.T, ns, job string) kueueWorkload {
	t.Helper()
	_, dyn, _ := kubeClients(t)
	ctx := context.Background()
	list, err := dyn.Resource(sandbox.WorkloadGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing Workloads in %s: %v", ns, err)
	}
	kind, name, found := strings.Cut(job, "/")
	if !found {
		kind, name = "Job", job
	}
	var w kueueWorkload
	for _, item := range list.Items {
		if owner := metav1.GetControllerOf(&item); owner != nil && owner.Kind == kind && owner.Name == name {
			w.Name = item.GetName()
			w.Conditions = map[string]string{}
			conds, _, _ := unstructured.NestedSlice(item.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				w.Conditions[fmt.Sprint(m["type"])] = fmt.Sprintf("%v: %v: %v", m["status"], m["reason"], m["message"])
			}
			w.Admitted = strings.HasPrefix(w.Conditions["Admitted"], "True")
			checks, _, _ := unstructured.NestedSlice(item.Object, "status", "admissionChecks")
			for _, c := range checks {
				m, _ := c.(map[string]any)
				w.Check = fmt.Sprintf("%v: %v", m["state"], m["message"])
			}
		}
	}
	if w.Name == "" {
		return w
	}
	all, err := accKubeSlices(t).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range all.Items {
		a := s.GetAnnotations()
		if a[wellknown.AnnotationOwnerWorkloadNamespace] == ns && a[wellknown.AnnotationOwnerWorkloadName] == w.Name && s.GetDeletionTimestamp() == nil {
			w.Slices = append(w.Slices, s.GetName())
		}
	}
	slices.Sort(w.Slices)
	return w
}

// awaitKueueWorkload polls the Job's (or "JobSet/name"'s) Workload until done says it is as
// wanted (an empty reason), within 2 minutes, failing with the last reason.
func awaitKueueWorkload(t *testing.T, ns, job string, done func(kueueWorkload) string) kueueWorkload {
	t.Helper()
	var w kueueWorkload
	testsupport.Poll(t, 2*time.Minute, 250*time.Millisecond, fmt.Sprintf("the Workload of Job %s/%s to be as wanted", ns, job), func() (bool, string, error) {
		w = readKueueWorkload(t, ns, job)
		why := "Kueue has made no Workload for it"
		if w.Name != "" {
			why = done(w)
		}
		return why == "", fmt.Sprintf("Job %s/%s: %s (Workload %s, conditions %v, slice check %q, Slices %v)", ns, job, why, w.Name, w.Conditions, w.Check, w.Slices), nil
	})
	return w
}

// admittedWith wants the Workload admitted with n Slices.
func admittedWith(n int) func(kueueWorkload) string {
	return func(w kueueWorkload) string {
		if !w.Admitted || len(w.Slices) != n {
			return fmt.Sprintf("not admitted with %d Slice(s)", n)
		}
		return ""
	}
}

// slicesGone wants the Workload's Slices deleted.
func slicesGone(w kueueWorkload) string {
	if len(w.Slices) > 0 {
		return "its Slices are still there"
	}
	return ""
}

var jobSetGVR = schema.GroupVersionResource{Group: "jobset.x-k8s.io", Version: "v1alpha2", Resource: "jobsets"}

// submitJobSetManifest creates the JobSet of a rendered manifest (YAML or
// JSON) under another name, its pod templates given the annotations.
func submitJobSetManifest(t *testing.T, manifest, name string, podAnnotations map[string]string) {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(manifest), &obj); err != nil {
		t.Fatalf("reading the JobSet manifest: %v", err)
	}
	js := &unstructured.Unstructured{Object: obj}
	js.SetName(name)
	jobs, _, _ := unstructured.NestedSlice(obj, "spec", "replicatedJobs")
	for _, rj := range jobs {
		rjm, _ := rj.(map[string]any)
		for k, v := range podAnnotations {
			if err := unstructured.SetNestedField(rjm, v, "template", "spec", "template", "metadata", "annotations", k); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := unstructured.SetNestedSlice(obj, jobs, "spec", "replicatedJobs"); err != nil {
		t.Fatal(err)
	}
	_, dyn, _ := kubeClients(t)
	if _, err := dyn.Resource(jobSetGVR).Namespace(js.GetNamespace()).Create(context.Background(), js, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating JobSet %s: %v", name, err)
	}
	ns := js.GetNamespace()
	t.Cleanup(func() { deleteJobSet(t, ns, name) })
}

// deleteJobSet deletes a JobSet with its Jobs and pods (in the background).
func deleteJobSet(t *testing.T, ns, name string) {
	t.Helper()
	_, dyn, _ := kubeClients(t)
	bg := metav1.DeletePropagationBackground
	_ = dyn.Resource(jobSetGVR).Namespace(ns).Delete(context.Background(), name, metav1.DeleteOptions{PropagationPolicy: &bg})
}

// checkJobSetOnSlices waits until every pod of the JobSet is bound, then
// checks that each of its Jobs runs on the nodes of one of the Slices, a
// different one each.
func checkJobSetOnSlices(t *testing.T, ns, jobSet string, sliceNames []string) {
	t.Helper()
	kube, _, _ := kubeClients(t)
	ctx := context.Background()
	var onSlice map[string]map[string]bool // Job index → slices of its pods' nodes
	testsupport.Poll(t, time.Minute, 250*time.Millisecond, fmt.Sprintf("every pod of JobSet %s to be bound, its Jobs on %d slices", jobSet, len(sliceNames)), func() (bool, string, error) {
		pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "jobset.sigs.k8s.io/jobset-name=" + jobSet})
		if err != nil {
			t.Fatal(err)
		}
		onSlice = map[string]map[string]bool{}
		bound := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName == "" {
				continue
			}
			bound++
			n, err := kube.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			job := p.Labels["jobset.sigs.k8s.io/job-index"]
			if onSlice[job] == nil {
				onSlice[job] = map[string]bool{}
			}
			onSlice[job][n.Labels[wellknown.LabelSlice]] = true
		}
		done := bound == len(pods.Items) && bound > 0 && len(onSlice) == len(sliceNames)
		return done, fmt.Sprintf("JobSet %s: %d of %d pods bound, Jobs on %v", jobSet, bound, len(pods.Items), onSlice), nil
	})
	used := map[string]string{}
	for job, on := range onSlice {
		if len(on) != 1 {
			t.Errorf("Job %s of JobSet %s runs on slices %v; want one", job, jobSet, on)
			continue
		}
		for s := range on {
			if !slices.Contains(sliceNames, s) {
				t.Errorf("Job %s of JobSet %s runs on %q, not one of its Slices %v", job, jobSet, s, sliceNames)
			}
			if other, ok := used[s]; ok {
				t.Errorf("Jobs %s and %s share Slice %s", job, other, s)
			}
			used[s] = job
		}
	}
}
