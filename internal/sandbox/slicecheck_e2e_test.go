package sandbox

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecheck"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/slicecontroller"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// End to end on the Kueue path: the real Kueue queues and admits, its
// topology-aware scheduling picks the partitions, the emulated slice
// admission check makes the Slices, the real scheduler binds the pods.

var jobSetGVR = schema.GroupVersionResource{Group: "jobset.x-k8s.io", Version: "v1alpha2", Resource: "jobsets"}

// kueuePath sets up Kueue for dynamic slicing as gke_kueue_slicing does
// (a Topology down to the host, with the sub-slice levels; a flavor of
// tpu7x nodes that tolerates their TPU taint; the slice admission check; a
// ClusterQueue of quota chips; a LocalQueue in a namespace of its own) and
// returns the namespace.
func kueuePath(t *testing.T, name string, quota int) string {
	t.Helper()
	dyn := testDynamic(t)
	ctx := testContext(t)
	ns := name + "-ns"
	if _, err := testKube(t).CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = testKube(t).CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	objs := []struct {
		resource string
		obj      *unstructured.Unstructured
	}{
		{"topologies", kueueObject("Topology", "", name, map[string]any{"levels": tasLevels(true)})},
		{"resourceflavors", kueueObject("ResourceFlavor", "", name, map[string]any{
			"nodeLabels":   map[string]any{wellknown.LabelAccelerator: topology.SliceType},
			"topologyName": name,
			"tolerations":  []any{map[string]any{"key": TaintTPU, "operator": "Exists", "effect": "NoSchedule"}},
		})},
		{"admissionchecks", kueueObject("AdmissionCheck", "", name, map[string]any{"controllerName": KueueSliceController})},
		{"clusterqueues", kueueObject("ClusterQueue", "", name, map[string]any{
			"namespaceSelector": map[string]any{},
			"resourceGroups": []any{map[string]any{
				"coveredResources": []any{wellknown.ResourceTPU},
				"flavors":          []any{map[string]any{"name": name, "resources": []any{map[string]any{"name": wellknown.ResourceTPU, "nominalQuota": int64(quota)}}}},
			}},
			"admissionChecksStrategy": map[string]any{"admissionChecks": []any{map[string]any{"name": name}}},
		})},
		{"localqueues", kueueObject("LocalQueue", ns, name, map[string]any{"clusterQueue": name})},
	}
	for _, o := range objs {
		if _, err := dyn.Resource(kueueGVR(o.resource)).Namespace(o.obj.GetNamespace()).Create(ctx, o.obj, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s %s: %v", o.obj.GetKind(), o.obj.GetName(), err)
		}
	}
	t.Cleanup(func() {
		for i := len(objs) - 1; i >= 0; i-- {
			o := objs[i]
			_ = dyn.Resource(kueueGVR(o.resource)).Namespace(o.obj.GetNamespace()).Delete(context.Background(), o.obj.GetName(), metav1.DeleteOptions{})
		}
	})
	// Kueue serves the queue once the check is Active.
	poll(t, 30*time.Second, func() (bool, string) {
		cq, err := dyn.Resource(kueueGVR("clusterqueues")).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return slicecheck.ConditionTrue(cq, "Active"), fmt.Sprintf("ClusterQueue %s not Active: %v", name, cq.Object["status"])
	})
	return ns
}

// slicePodTemplate is the pod template of a workload on a slice of topo:
// 4 chips per pod, running for run.
func slicePodTemplate(topo string, run time.Duration) map[string]any {
	return map[string]any{
		"metadata": map[string]any{"annotations": map[string]any{
			wellknown.AnnotationSliceTopology:               topo,
			"pod-complete.stage.kwok.x-k8s.io/delay":        run.String(),
			"pod-complete.stage.kwok.x-k8s.io/jitter-delay": run.String(),
		}},
		"spec": map[string]any{
			"restartPolicy": "Never",
			"nodeSelector":  map[string]any{wellknown.LabelAccelerator: topology.SliceType},
			"containers": []any{map[string]any{
				"name": "worker", "image": "python:3.12",
				"resources": map[string]any{"limits": map[string]any{wellknown.ResourceTPU: int64(4)}, "requests": map[string]any{wellknown.ResourceTPU: int64(4)}},
			}},
		},
	}
}

// submitJobSet creates a JobSet of jobs Jobs, each on a slice of topo, in
// the LocalQueue queue of ns.
func submitJobSet(t *testing.T, ns, name, queue, topo string, jobs int, run time.Duration) {
	t.Helper()
	tp, _ := topology.ParseTPU7x(topo)
	hosts := int64(tp.Hosts())
	js := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"kueue.x-k8s.io/queue-name": queue}},
		"spec": map[string]any{"replicatedJobs": []any{map[string]any{
			"name": "slice-job", "replicas": int64(jobs),
			"template": map[string]any{"spec": map[string]any{
				"parallelism": hosts, "completions": hosts, "backoffLimit": int64(0), "completionMode": "Indexed",
				"template": slicePodTemplate(topo, run),
			}},
		}}},
	}}
	if _, err := testDynamic(t).Resource(jobSetGVR).Namespace(ns).Create(testContext(t), js, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating JobSet %s/%s: %v", ns, name, err)
	}
}

// sliceJob is an Indexed Job of pods pods in the LocalQueue queue of ns,
// each pod on a slice of topo (slicePodTemplate) for run.
func sliceJob(ns, name, queue, topo string, pods int64, run time.Duration) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "batch/v1", "kind": "Job",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"kueue.x-k8s.io/queue-name": queue}},
		"spec":     map[string]any{"parallelism": pods, "completions": pods, "completionMode": "Indexed", "template": slicePodTemplate(topo, run)},
	}}
}

// submitJob creates the Job in its namespace and returns the API server's
// answer: the Job as admitted (the webhooks' defaults in it), or why not.
func submitJob(t *testing.T, job *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	t.Helper()
	jobs := schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
	return testDynamic(t).Resource(jobs).Namespace(job.GetNamespace()).Create(testContext(t), job, metav1.CreateOptions{})
}

// workloadOf returns the Workload Kueue made for the owner (kind/name) in
// ns, or nil.
func workloadOf(t *testing.T, ns, kind, name string) *unstructured.Unstructured {
	t.Helper()
	list, err := testDynamic(t).Resource(WorkloadGVR).Namespace(ns).List(testContext(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		if o := metav1.GetControllerOf(&list.Items[i]); o != nil && o.Kind == kind && o.Name == name {
			return &list.Items[i]
		}
	}
	return nil
}

// workloadSlices are the live Slices the check made for the Workload.
func workloadSlices(t *testing.T, ns, workload string) []slicecontroller.View {
	t.Helper()
	list, err := testDynamic(t).Resource(SliceGVR).List(testContext(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []slicecontroller.View
	for i := range list.Items {
		s := &list.Items[i]
		a := s.GetAnnotations()
		if a[wellknown.AnnotationOwnerWorkloadNamespace] == ns && a[wellknown.AnnotationOwnerWorkloadName] == workload && s.GetDeletionTimestamp() == nil {
			out = append(out, slicecontroller.ViewOf(s))
		}
	}
	slices.SortFunc(out, func(a, b slicecontroller.View) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func describeWorkload(wl *unstructured.Unstructured) string {
	if wl == nil {
		return "no Workload"
	}
	conds, _, _ := unstructured.NestedSlice(wl.Object, "status", "conditions")
	checks, _, _ := unstructured.NestedSlice(wl.Object, "status", "admissionChecks")
	return fmt.Sprintf("Workload %s: conditions %v; checks %v", wl.GetName(), conds, checks)
}

// A JobSet of two Jobs, each on a 4x4x4 slice: Kueue admits it within the
// quota, the check makes one Slice per Job on the partitions TAS chose
// (named <namespace>-<workload>-<pod set>-<index>, with the owner
// annotations), marks the check Ready once they are ACTIVE, the scheduler
// binds each Job's 16 pods on its Slice's nodes, and when the Jobs finish
// the Slices are deleted. A second JobSet beyond the quota waits, its
// Workload saying why, and is admitted when the first is done.
func TestSliceCheckJobSet(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	for _, sb := range []string{"sub-block-a1", "sub-block-a2", "sub-block-a3", "sub-block-a4"} {
		if err := createPool(t, svc, poolSpec("kq-"+sb, reservationPath("tpu7x-reservation", "block-a", sb), 16)); err != nil {
			t.Fatal(err)
		}
	}
	ns := kueuePath(t, "kq-js", 256)
	submitJobSet(t, ns, "train", "kq-js", "4x4x4", 2, 20*time.Second)

	var wl *unstructured.Unstructured
	var formed []slicecontroller.View
	poll(t, 90*time.Second, func() (bool, string) {
		wl = workloadOf(t, ns, "JobSet", "train")
		if wl == nil || !slicecheck.ConditionTrue(wl, "Admitted") {
			return false, describeWorkload(wl)
		}
		formed = workloadSlices(t, ns, wl.GetName())
		return len(formed) == 2, fmt.Sprintf("%d Slices; %s", len(formed), describeWorkload(wl))
	})
	// The check's words where a user reads them: its AdmissionCheck's
	// Active condition, the events on the Workload, its message once Ready.
	ac, err := testDynamic(t).Resource(AdmissionCheckGVR).Get(testContext(t), "kq-js", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := conditionOf(ac, "Active"); c["status"] != "True" || c["message"] != slicecheck.ActiveMessage || slicecheck.ActiveMessage != "The admission check is active" {
		t.Errorf("AdmissionCheck kq-js Active condition %v; want True, The admission check is active", c)
	}
	created := fmt.Sprintf("The Slices %q, %q have been created", slicecheck.SliceName(ns, wl.GetName(), "slice-job", 0), slicecheck.SliceName(ns, wl.GetName(), "slice-job", 1))
	ready := `Admission check "kq-js" updated state from "Pending" to "Ready"`
	poll(t, 30*time.Second, func() (bool, string) {
		ev := workloadEvents(t, ns, wl.GetName())
		return slices.Contains(ev, "Normal SlicesCreated "+created) && slices.Contains(ev, "Normal AdmissionCheckUpdated "+ready),
			fmt.Sprintf("events on Workload %s: %q; want SlicesCreated %q and AdmissionCheckUpdated %q", wl.GetName(), ev, created, ready)
	})
	if c := checkOf(wl); c["state"] != "Ready" || c["message"] != "Slices are in states: 2 ACTIVE" {
		t.Errorf("the check on the admitted Workload: %v; want Ready, Slices are in states: 2 ACTIVE", c)
	}
	seen := map[string]bool{}
	for i, s := range formed {
		if want := slicecheck.SliceName(ns, wl.GetName(), "slice-job", i); s.Name != want {
			t.Errorf("Slice %d is %s; want %s", i, s.Name, want)
		}
		if s.State != ReasonActive || s.Topology != "4x4x4" || len(s.Partitions) != 1 || seen[s.Partitions[0]] {
			t.Errorf("Slice %s: %s %s on %v; want ACTIVE 4x4x4 on a partition of its own", s.Name, s.State, s.Topology, s.Partitions)
		}
		seen[s.Partitions[0]] = true
		if a := s.Obj.GetAnnotations(); a[wellknown.AnnotationOwnerPodSet] != "slice-job" {
			t.Errorf("Slice %s annotations %v", s.Name, a)
		}
	}

	// A second JobSet of two 4x4x8 slices (256 chips) beyond what is left
	// of the quota waits, and its Workload says so.
	submitJobSet(t, ns, "big", "kq-js", "4x4x8", 2, 2*time.Second)
	poll(t, 30*time.Second, func() (bool, string) {
		big := workloadOf(t, ns, "JobSet", "big")
		if big == nil {
			return false, "no Workload for JobSet big"
		}
		return !slicecheck.ConditionTrue(big, "QuotaReserved") && strings.Contains(describeWorkload(big), "insufficient"), describeWorkload(big)
	})

	// Each Job's pods run on its own Slice's nodes.
	poll(t, 60*time.Second, func() (bool, string) {
		pods, err := testKube(t).CoreV1().Pods(ns).List(testContext(t), metav1.ListOptions{LabelSelector: "jobset.sigs.k8s.io/jobset-name=train"})
		if err != nil {
			return false, err.Error()
		}
		bySlice := map[string]map[string]bool{} // job index → slices its pods are on
		bound := 0
		for _, p := range pods.Items {
			if p.Spec.NodeName == "" {
				continue
			}
			bound++
			n, err := testKube(t).CoreV1().Nodes().Get(testContext(t), p.Spec.NodeName, metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			job := p.Labels["jobset.sigs.k8s.io/job-index"]
			if bySlice[job] == nil {
				bySlice[job] = map[string]bool{}
			}
			bySlice[job][n.Labels[wellknown.LabelSlice]] = true
		}
		if bound < 32 {
			return false, fmt.Sprintf("%d of 32 pods bound", bound)
		}
		for job, on := range bySlice {
			if len(on) != 1 || on[""] {
				return false, fmt.Sprintf("Job %s's pods are on slices %v", job, on)
			}
		}
		if bySlice["0"] == nil || bySlice["1"] == nil || fmt.Sprint(bySlice["0"]) == fmt.Sprint(bySlice["1"]) {
			return false, fmt.Sprintf("Jobs on %v; want one slice each", bySlice)
		}
		return true, ""
	})

	// The Jobs finish; the Slices go; the big JobSet gets its turn.
	poll(t, 2*time.Minute, func() (bool, string) {
		left := workloadSlices(t, ns, wl.GetName())
		return len(left) == 0, fmt.Sprintf("Slices of %s left: %d", wl.GetName(), len(left))
	})
	poll(t, 2*time.Minute, func() (bool, string) {
		big := workloadOf(t, ns, "JobSet", "big")
		if big == nil || !slicecheck.ConditionTrue(big, "Admitted") {
			return false, describeWorkload(big)
		}
		s := workloadSlices(t, ns, big.GetName())
		return len(s) == 2 && len(s[0].Partitions) == 2, fmt.Sprintf("%d Slices", len(s))
	})
}

// A sub-slice Job on the same path: TAS picks one 2x2x2 partition, the
// check makes a 2x2x2 Slice listing it; a Job whose chips do not add up to
// its slice's is refused at creation by the check's webhook.
func TestSliceCheckSubSlice(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	if err := createPool(t, svc, poolSpec("kq-sub", reservationPath("tpu7x-reservation", "block-a", "sub-block-a1"), 16)); err != nil {
		t.Fatal(err)
	}
	ns := kueuePath(t, "kq-sub", 64)
	job := func(name string, pods int64) *unstructured.Unstructured {
		return sliceJob(ns, name, "kq-sub", "2x2x2", pods, 10*time.Second)
	}
	if _, err := submitJob(t, job("too-few", 1)); !apierrors.IsForbidden(err) ||
		!strings.Contains(err.Error(), `admission webhook "mjob.kb.io" denied the request: invalid job "too-few": configuration results in 4 TPUs requested, but must be exactly 8 TPUs (full utilization)`) {
		t.Errorf("a Job of 1 pod on a 2x2x2 slice: %v; want refused (403) with the numbers", err)
	}
	created, err := submitJob(t, job("sub", 2))
	if err != nil {
		t.Fatal(err)
	}
	ann, _, _ := unstructured.NestedStringMap(created.Object, "spec", "template", "metadata", "annotations")
	if ann[slicecheck.AnnotationTASSliceRequired] != topology.PartitionIDLabel("2x2x2") || ann[slicecheck.AnnotationTASSliceSize] != "2" {
		t.Errorf("the Job's pod template annotations %v; want Kueue's TAS annotations for a 2x2x2 slice", ann)
	}
	poll(t, 90*time.Second, func() (bool, string) {
		wl := workloadOf(t, ns, "Job", "sub")
		if wl == nil || !slicecheck.ConditionTrue(wl, "Admitted") {
			return false, describeWorkload(wl)
		}
		s := workloadSlices(t, ns, wl.GetName())
		if len(s) != 1 || s[0].Topology != "2x2x2" || s[0].State != ReasonActive || len(s[0].Partitions) != 1 {
			return false, fmt.Sprintf("Slices %v", s)
		}
		// The partition is one of the pool's 2x2x2 partitions.
		nodes := poolNodes(t, "kq-sub")
		return slices.ContainsFunc(nodes, func(n corev1.Node) bool { return n.Labels[topology.PartitionIDLabel("2x2x2")] == s[0].Partitions[0] }),
			fmt.Sprintf("Slice %s lists %v, not a 2x2x2 partition of kq-sub", s[0].Name, s[0].Partitions)
	})
}

// A Slice that fails to form: the check sets Retry with the controller's
// message and deletes it, the Workload shows TPUSliceFailure
// (RuntimeFailure, that message), Kueue evicts and requeues it, and the next
// admission's Slice forms. As the open-source controller's, the condition
// turns False ("Previously: …") when the check is Pending again, and is gone
// from the Workload with the status write after that, which does not name it:
// the test follows every change of the Workload to see it.
func TestSliceCheckRetry(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	if err := createPool(t, svc, poolSpec("kq-retry", reservationPath("tpu7x-reservation", "block-a", "sub-block-a2"), 16)); err != nil {
		t.Fatal(err)
	}
	ns := kueuePath(t, "kq-retry", 64)
	withFaults(t, Faults{FailSliceFormations: 1})
	failures := followSliceFailures(t, ns)
	if _, err := submitJob(t, sliceJob(ns, "retried", "kq-retry", "4x4x4", 16, 10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	poll(t, 2*time.Minute, func() (bool, string) {
		wl := workloadOf(t, ns, "Job", "retried")
		if wl == nil || checkOf(wl)["state"] != "Ready" {
			return false, describeWorkload(wl)
		}
		requeued, _, _ := unstructured.NestedInt64(wl.Object, "status", "requeueState", "count")
		retries, _, _ := unstructured.NestedInt64(checkOf(wl), "retryCount")
		s := workloadSlices(t, ns, wl.GetName())
		return (requeued > 0 || retries > 0) && len(s) == 1 && s[0].State == ReasonActive && conditionOf(wl, slicecheck.ConditionSliceFailure) == nil,
			fmt.Sprintf("requeued %d, check retries %d, Slices %d; %s", requeued, retries, len(s), describeWorkload(wl))
	})
	seen := failures()
	var runtime, previously bool
	for _, f := range seen {
		runtime = runtime || f.status == "True" && f.reason == slicecheck.ReasonRuntimeFailure &&
			strings.HasPrefix(f.message, "Slices are in states: 1 FAILED. Errors: ") && strings.HasSuffix(f.message, "the ICI links of the slice could not be formed (sandbox fault)")
		previously = previously || f.status == "False" && f.reason == slicecheck.ReasonRuntimeFailure && strings.HasPrefix(f.message, "Previously: Slices are in states: 1 FAILED")
	}
	if !runtime || !previously {
		t.Errorf("TPUSliceFailure as the Workload showed it: %+v; want True RuntimeFailure \"Slices are in states: 1 FAILED. Errors: …\", then False \"Previously: …\"", seen)
	}
}

// sliceFailure is a TPUSliceFailure condition a Workload showed.
type sliceFailure struct{ status, reason, message string }

// followSliceFailures watches the Workloads of ns until the test ends and
// returns what tells the TPUSliceFailure conditions they have shown, each
// change once, in order.
func followSliceFailures(t *testing.T, ns string) func() []sliceFailure {
	t.Helper()
	w, err := testDynamic(t).Resource(WorkloadGVR).Namespace(ns).Watch(testContext(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []sliceFailure
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			wl, ok := ev.Object.(*unstructured.Unstructured)
			if !ok {
				continue
			}
			if c := conditionOf(wl, slicecheck.ConditionSliceFailure); c != nil {
				f := sliceFailure{fmt.Sprint(c["status"]), fmt.Sprint(c["reason"]), fmt.Sprint(c["message"])}
				mu.Lock()
				if len(seen) == 0 || seen[len(seen)-1] != f {
					seen = append(seen, f)
				}
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { w.Stop(); <-done })
	return func() []sliceFailure {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// A Slice that stays ACTIVATING past the activation timeout is STALE: the
// check deletes it and makes it again under the same name, its Workload's
// check staying Pending (no eviction, no TPUSliceFailure); once the new
// Slice is ACTIVE the check is Ready.
func TestSliceCheckStale(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	if err := createPool(t, svc, poolSpec("kq-stale", reservationPath("tpu7x-reservation", "block-b", "sub-block-b1"), 16)); err != nil {
		t.Fatal(err)
	}
	ns := kueuePath(t, "kq-stale", 64)
	withFaults(t, Faults{SliceActivationDelayMs: 100}) // a delay to hold
	activation := holdDelays(t, DelaySliceActivation, "")
	failures := followSliceFailures(t, ns)
	if _, err := submitJob(t, sliceJob(ns, "stale", "kq-stale", "4x4x4", 16, 10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	poll(t, time.Minute, func() (bool, string) {
		wl := workloadOf(t, ns, "Job", "stale")
		if wl == nil {
			return false, "no Workload"
		}
		return len(workloadSlices(t, ns, wl.GetName())) > 0, describeWorkload(wl)
	})
	first := activation.next(t) // the first Slice, held ACTIVATING
	held, err := testDynamic(t).Resource(SliceGVR).Get(testContext(t), first.Of, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	again := activation.next(t) // past the timeout: the same Slice made again
	if again.Of != first.Of {
		t.Errorf("the Slice made after %s stayed ACTIVATING is %s; want %s again", first.Of, again.Of, first.Of)
	}
	remade, err := testDynamic(t).Resource(SliceGVR).Get(testContext(t), again.Of, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if remade.GetUID() == held.GetUID() {
		t.Errorf("Slice %s has the UID it had: want it deleted and made again", again.Of)
	}
	wl := workloadOf(t, ns, "Job", "stale")
	if c := checkOf(wl); c["state"] != "Pending" || c["retryCount"] != nil {
		t.Errorf("the check while its Slice is made again: %v; want Pending, never retried", c)
	}
	again.end()
	poll(t, time.Minute, func() (bool, string) {
		wl = workloadOf(t, ns, "Job", "stale")
		return checkOf(wl)["state"] == "Ready", describeWorkload(wl)
	})
	if c := checkOf(wl); c["retryCount"] != nil || conditionOf(wl, "Evicted") != nil {
		t.Errorf("the check once Ready: %v; %s; want no retry and no eviction", c, describeWorkload(wl))
	}
	if f := failures(); len(f) != 0 {
		t.Errorf("TPUSliceFailure as the Workload showed it: %+v; want none", f)
	}
	activation.none(t)
}

// A Slice of a running Workload is deleted: the check evicts it with the
// controller's words (TPUSliceFailure Deletion, "Slice has been deleted"),
// Kueue requeues it, and its next admission makes the Slice again.
func TestSliceCheckSliceDeleted(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	if err := createPool(t, svc, poolSpec("kq-del", reservationPath("tpu7x-reservation", "block-b", "sub-block-b2"), 16)); err != nil {
		t.Fatal(err)
	}
	ns := kueuePath(t, "kq-del", 64)
	if _, err := submitJob(t, sliceJob(ns, "lose-slice", "kq-del", "4x4x4", 16, 10*time.Minute)); err != nil {
		t.Fatal(err)
	}
	var first []slicecontroller.View
	var wlName string
	poll(t, 2*time.Minute, func() (bool, string) {
		wl := workloadOf(t, ns, "Job", "lose-slice")
		if wl == nil || checkOf(wl)["state"] != "Ready" {
			return false, describeWorkload(wl)
		}
		wlName = wl.GetName()
		first = workloadSlices(t, ns, wlName)
		// Ready: its Slice is ACTIVE, or ACTIVE_DEGRADED on a sub-block of
		// the inventory with a degraded host.
		return len(first) == 1, fmt.Sprintf("Slices %v", first)
	})
	if err := testDynamic(t).Resource(SliceGVR).Delete(testContext(t), first[0].Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, time.Minute, func() (bool, string) {
		wl := workloadOf(t, ns, "Job", "lose-slice")
		f := conditionOf(wl, slicecheck.ConditionSliceFailure)
		return f["reason"] == slicecheck.ReasonDeletion && strings.TrimPrefix(fmt.Sprint(f["message"]), "Previously: ") == "Slice has been deleted",
			fmt.Sprintf("TPUSliceFailure %v; %s", f, describeWorkload(wl))
	})
	poll(t, 2*time.Minute, func() (bool, string) {
		wl := workloadOf(t, ns, "Job", "lose-slice")
		if wl == nil || checkOf(wl)["state"] != "Ready" {
			return false, describeWorkload(wl)
		}
		s := workloadSlices(t, ns, wl.GetName())
		return len(s) == 1 && s[0].Name == first[0].Name && s[0].Obj.GetUID() != first[0].Obj.GetUID(),
			fmt.Sprintf("Slices %v; want %s made again", s, first[0].Name)
	})
	// Kueue's eviction event quotes the check's message.
	ev := workloadEvents(t, ns, wlName)
	if want := `Normal EvictedDueToAdmissionCheck Evicted due to AdmissionCheck in Retry state: "kq-del" (Slice has been deleted)`; !slices.Contains(ev, want) {
		t.Errorf("events on Workload %s: %q; want %q", wlName, ev, want)
	}
}

// The webhook refuses, in the controller's words and 403, a Job whose
// chips are only in requests; defaults a StatefulSet on a slice with a
// node selector on the slice's topology; and is registered for Jobs,
// JobSets, LeaderWorkerSets and StatefulSets.
func TestSliceCheckWebhook(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	ns := "kq-webhook-ns"
	if _, err := testKube(t).CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = testKube(t).CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })

	tmpl := slicePodTemplate("4x4x4", time.Second)
	c := tmpl["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
	c["resources"] = map[string]any{"requests": map[string]any{wellknown.ResourceTPU: int64(4)}}
	job := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "batch/v1", "kind": "Job",
		"metadata": map[string]any{"name": "requests-only", "namespace": ns, "labels": map[string]any{"kueue.x-k8s.io/queue-name": "none"}},
		"spec":     map[string]any{"parallelism": int64(16), "completions": int64(16), "template": tmpl},
	}}
	_, err := submitJob(t, job)
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `invalid job "requests-only": configuration results in 0 TPUs requested, but must be exactly 64 TPUs (full utilization)`) {
		t.Errorf("a Job with chips only in requests: %v; want refused (403), 0 TPUs requested", err)
	}

	sts := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "StatefulSet",
		"metadata": map[string]any{"name": "on-slice", "namespace": ns},
		"spec": map[string]any{
			"replicas": int64(0), "serviceName": "on-slice",
			"selector": map[string]any{"matchLabels": map[string]any{"app": "on-slice"}},
			"template": func() map[string]any {
				t := slicePodTemplate("4x4x4", time.Second)
				t["metadata"].(map[string]any)["labels"] = map[string]any{"app": "on-slice"}
				t["spec"].(map[string]any)["restartPolicy"] = "Always"
				return t
			}(),
		},
	}}
	got, err := testDynamic(t).Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}).Namespace(ns).Create(ctx, sts, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sel, _, _ := unstructured.NestedString(got.Object, "spec", "template", "spec", "nodeSelector", wellknown.LabelSliceTopology); sel != "4x4x4" {
		t.Errorf("StatefulSet node selector %s = %q; want 4x4x4", wellknown.LabelSliceTopology, sel)
	}

	cfg, err := testKube(t).AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, sliceWebhookConfiguration(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, w := range cfg.Webhooks {
		for _, r := range w.Rules {
			kinds = append(kinds, r.Resources...)
		}
	}
	if want := []string{"jobs", "jobsets", "leaderworkersets", "statefulsets"}; !slices.Equal(kinds, want) {
		t.Errorf("the slice webhook is registered for %v; want %v", kinds, want)
	}
}

// conditionOf is the object's condition of type typ, or nil.
func conditionOf(obj *unstructured.Unstructured, typ string) map[string]any {
	if obj == nil {
		return nil
	}
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == typ {
			return m
		}
	}
	return nil
}

// checkOf is the Workload's entry of its (only) admission check, or nil.
func checkOf(wl *unstructured.Unstructured) map[string]any {
	if wl == nil {
		return nil
	}
	checks, _, _ := unstructured.NestedSlice(wl.Object, "status", "admissionChecks")
	if len(checks) == 0 {
		return nil
	}
	m, _ := checks[0].(map[string]any)
	return m
}

// workloadEvents are the events on the Workload ("Type Reason Message").
func workloadEvents(t *testing.T, ns, name string) []string {
	t.Helper()
	list, err := testKube(t).CoreV1().Events(ns).List(testContext(t), metav1.ListOptions{FieldSelector: "involvedObject.kind=Workload,involvedObject.name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		out = append(out, e.Type+" "+e.Reason+" "+e.Message)
	}
	return out
}
