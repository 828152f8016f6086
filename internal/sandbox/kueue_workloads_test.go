package sandbox

import (
	"context"
	"encoding/json"
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
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Kueue's names, as its API package spells them.
const (
	kueueQueueNameLabel         = "kueue.x-k8s.io/queue-name"
	kueuePodSetRequiredTopo     = "kueue.x-k8s.io/podset-required-topology"
	kueuePodSetSliceRequired    = "kueue.x-k8s.io/podset-slice-required-topology"
	kueuePodSetSliceSize        = "kueue.x-k8s.io/podset-slice-size"
	kueueTopologySchedulingGate = "kueue.x-k8s.io/topology"
)

// kqRes is a Kueue resource in v1beta2.
func kqRes(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: KueueGroup, Version: "v1beta2", Resource: resource}
}

// kqCreate creates a Kueue object (v1beta2) and deletes it when the test
// ends.
func kqCreate(t *testing.T, dyn dynamic.Interface, resource, namespace, kind, name string, spec map[string]any) {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": KueueGroup + "/v1beta2", "kind": kind,
		"metadata": map[string]any{"name": name}, "spec": spec,
	}}
	res := dyn.Resource(kqRes(resource)).Namespace(namespace)
	if _, err := res.Create(testContext(t), obj, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating %s %s: %v", kind, name, err)
	}
	t.Cleanup(func() { _ = res.Delete(context.Background(), name, metav1.DeleteOptions{}) })
}

// kqQueues creates a ResourceFlavor, a ClusterQueue of 64 TPU chips of it
// and a LocalQueue in ns, all named name, and waits until the
// ClusterQueue is active. flavor is the flavor's spec; checks are the
// ClusterQueue's admission checks.
func kqQueues(t *testing.T, dyn dynamic.Interface, ns, name string, flavor map[string]any, checks ...string) {
	t.Helper()
	kqCreate(t, dyn, "resourceflavors", "", "ResourceFlavor", name, flavor)
	cq := map[string]any{
		"namespaceSelector": map[string]any{},
		"resourceGroups": []any{map[string]any{
			"coveredResources": []any{string(ResourceTPU)},
			"flavors": []any{map[string]any{
				"name":      name,
				"resources": []any{map[string]any{"name": string(ResourceTPU), "nominalQuota": int64(64)}},
			}},
		}},
	}
	if len(checks) > 0 {
		var acs []any
		for _, c := range checks {
			acs = append(acs, map[string]any{"name": c})
		}
		cq["admissionChecksStrategy"] = map[string]any{"admissionChecks": acs}
	}
	kqCreate(t, dyn, "clusterqueues", "", "ClusterQueue", name, cq)
	kqCreate(t, dyn, "localqueues", ns, "LocalQueue", name, map[string]any{"clusterQueue": name})
	if len(checks) == 0 {
		kqWaitCondition(t, dyn, kqRes("clusterqueues"), "", name, "Active", "True")
	}
}

// kqCondition is the named condition of a Kueue object, if it has it.
func kqCondition(obj *unstructured.Unstructured, condType string) (map[string]any, bool) {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == condType {
			return m, true
		}
	}
	return nil, false
}

// kqWaitCondition waits (30s) until the object has the condition with the
// status, and returns the object.
func kqWaitCondition(t *testing.T, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name, condType, status string) *unstructured.Unstructured {
	t.Helper()
	var obj *unstructured.Unstructured
	poll(t, 30*time.Second, func() (bool, string) {
		var err error
		if obj, err = dyn.Resource(gvr).Namespace(ns).Get(testContext(t), name, metav1.GetOptions{}); err != nil {
			return false, err.Error()
		}
		c, ok := kqCondition(obj, condType)
		return ok && c["status"] == status, fmt.Sprintf("%s %s: condition %s is %v, want %s; status %v (see kueue.log in %s)",
			gvr.Resource, name, condType, c, status, obj.Object["status"], testSandbox.Dir)
	})
	return obj
}

// kqJob creates, in ns, a Job of n pods that each ask for a TPU host (4
// chips), queued to the LocalQueue queue, its pod template annotated, and
// deletes it (with its pods) when the test ends.
func kqJob(t *testing.T, ns, name, queue string, n int32, annotations map[string]string) *batchv1.Job {
	t.Helper()
	jobs := testKube(t).BatchV1().Jobs(ns)
	job, err := jobs.Create(testContext(t), kqJobSpec(name, queue, n, annotations), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating Job %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = jobs.Delete(context.Background(), name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
	})
	return job
}

// kqJobSpec is the Job kqJob creates.
func kqJobSpec(name, queue string, n int32, annotations map[string]string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{kueueQueueNameLabel: queue}},
		Spec: batchv1.JobSpec{
			Parallelism: ptr.To(n), Completions: ptr.To(n), BackoffLimit: ptr.To(int32(0)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: annotations},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{
						Name: "main", Image: "us-docker.pkg.dev/cloud-tpu-images/jax:latest",
						Resources: corev1.ResourceRequirements{
							Requests: corev1.ResourceList{ResourceTPU: resource.MustParse("4")},
							Limits:   corev1.ResourceList{ResourceTPU: resource.MustParse("4")},
						},
					}},
				},
			},
		},
	}
}

// kqWorkload waits (30s) for the Workload Kueue makes for the Job and
// returns its name.
func kqWorkload(t *testing.T, dyn dynamic.Interface, job *batchv1.Job) string {
	t.Helper()
	var name string
	poll(t, 30*time.Second, func() (bool, string) {
		list, err := dyn.Resource(kqRes("workloads")).Namespace(job.Namespace).List(testContext(t), metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, w := range list.Items {
			for _, o := range w.GetOwnerReferences() {
				if o.UID == job.UID {
					name = w.GetName()
					return true, ""
				}
			}
		}
		return false, fmt.Sprintf("no Workload of Job %s among %d (see kueue.log in %s)", job.Name, len(list.Items), testSandbox.Dir)
	})
	return name
}

// kqWaitJobComplete waits (90s) until the Job is Complete and returns its
// pods.
func kqWaitJobComplete(t *testing.T, ns, name string) []corev1.Pod {
	t.Helper()
	kube := testKube(t)
	var pods []corev1.Pod
	poll(t, 90*time.Second, func() (bool, string) {
		list, err := kube.CoreV1().Pods(ns).List(testContext(t), metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + name})
		if err != nil {
			return false, err.Error()
		}
		pods = list.Items
		job, err := kube.BatchV1().Jobs(ns).Get(testContext(t), name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return testsupport.JobComplete(job), fmt.Sprintf("Job %s: suspend %v, %+v; %s", name, ptr.Deref(job.Spec.Suspend, false), job.Status, describePods(pods))
	})
	return pods
}

// A Job that names a LocalQueue is suspended by Kueue's webhook, gets a
// Workload, is admitted within the ClusterQueue's quota of the flavor,
// unsuspended with the flavor's node labels in its pods' node selector,
// and runs: the real scheduler binds its 16 pods to the 16 TPU hosts of
// a node pool, kwok completes them, and the Workload is Finished.
func TestKueueAdmitsJob(t *testing.T) {
	needSandbox(t)
	if err := createPool(t, newGKEService(t), poolSpec("kq-job-a1", reservationPath("tpu7x-reservation", "block-a", "sub-block-a1"), 16)); err != nil {
		t.Fatal(err)
	}
	kube, dyn := testKube(t), testDynamic(t)
	ns := testNamespace(t, kube, "kueue-job")
	kqQueues(t, dyn, ns, "kq-job", map[string]any{"nodeLabels": map[string]any{wellknown.LabelAccelerator: topology.SliceType}})

	job := kqJob(t, ns, "train", "kq-job", 16, nil)
	if !ptr.Deref(job.Spec.Suspend, false) {
		t.Errorf("the Job was created unsuspended; want it suspended by Kueue's webhook")
	}
	wl := kqWorkload(t, dyn, job)
	obj := kqWaitCondition(t, dyn, kqRes("workloads"), ns, wl, "Admitted", "True")
	if c, _ := kqCondition(obj, "QuotaReserved"); c["status"] != "True" {
		t.Errorf("Workload %s: QuotaReserved %v, want True", wl, c)
	}
	psa, _, _ := unstructured.NestedSlice(obj.Object, "status", "admission", "podSetAssignments")
	cq, _, _ := unstructured.NestedString(obj.Object, "status", "admission", "clusterQueue")
	if len(psa) != 1 || cq != "kq-job" {
		t.Fatalf("Workload %s admission: cluster queue %q, pod set assignments %v", wl, cq, psa)
	}
	a, _ := psa[0].(map[string]any)
	if f, _, _ := unstructured.NestedString(a, "flavors", string(ResourceTPU)); f != "kq-job" || a["count"] != int64(16) {
		t.Errorf("pod set assignment %v; want 16 pods of flavor kq-job for %s", a, ResourceTPU)
	}
	if usage, _, _ := unstructured.NestedString(a, "resourceUsage", string(ResourceTPU)); usage != "64" {
		t.Errorf("pod set assignment resourceUsage %v; want 64 %s", a["resourceUsage"], ResourceTPU)
	}

	pods := kqWaitJobComplete(t, ns, "train")
	nodes := map[string]bool{}
	for _, n := range poolNodes(t, "kq-job-a1") {
		nodes[n.Name] = true
	}
	bound := map[string]bool{}
	for _, p := range pods {
		if p.Spec.NodeSelector[wellknown.LabelAccelerator] != topology.SliceType {
			t.Errorf("pod %s node selector %v; want the flavor's %s=%s (Kueue injects it)", p.Name, p.Spec.NodeSelector, wellknown.LabelAccelerator, topology.SliceType)
		}
		if !nodes[p.Spec.NodeName] || p.Status.Phase != corev1.PodSucceeded {
			t.Errorf("pod %s on %q, %s; want on a node of kq-job-a1, Succeeded", p.Name, p.Spec.NodeName, p.Status.Phase)
		}
		bound[p.Spec.NodeName] = true
	}
	if len(pods) != 16 || len(bound) != 16 {
		t.Errorf("%d pods on %d nodes; want 16 on 16 (a host's 4 chips each)", len(pods), len(bound))
	}
	kqWaitCondition(t, dyn, kqRes("workloads"), ns, wl, "Finished", "True")
}

// tasDomain is one domain of a topology assignment: its value at each
// level, and how many pods it gets.
type tasDomain struct {
	values []string
	pods   int64
}

// expandTopologyAssignment reads Kueue's v1beta2 topologyAssignment, whose
// slices compress the domains: each slice covers domainCount domains, with
// at each level either one universal value for all of them or individual
// values written as roots between an optional common prefix and suffix,
// and pod counts either universal or individual.
func expandTopologyAssignment(ta map[string]any) (levels []string, domains []tasDomain, err error) {
	levels, _, _ = unstructured.NestedStringSlice(ta, "levels")
	slicesList, _, _ := unstructured.NestedSlice(ta, "slices")
	for i, s := range slicesList {
		sm, _ := s.(map[string]any)
		count, _, _ := unstructured.NestedInt64(sm, "domainCount")
		perLevel, _, _ := unstructured.NestedSlice(sm, "valuesPerLevel")
		if len(perLevel) != len(levels) {
			return nil, nil, fmt.Errorf("slice %d has values for %d levels, not %d", i, len(perLevel), len(levels))
		}
		ds := make([]tasDomain, count)
		for l, v := range perLevel {
			vm, _ := v.(map[string]any)
			if u, ok, _ := unstructured.NestedString(vm, "universal"); ok {
				for d := range ds {
					ds[d].values = append(ds[d].values, u)
				}
				continue
			}
			prefix, _, _ := unstructured.NestedString(vm, "individual", "prefix")
			suffix, _, _ := unstructured.NestedString(vm, "individual", "suffix")
			roots, _, _ := unstructured.NestedStringSlice(vm, "individual", "roots")
			if len(roots) != len(ds) {
				return nil, nil, fmt.Errorf("slice %d level %d has %d roots for %d domains", i, l, len(roots), len(ds))
			}
			for d := range ds {
				ds[d].values = append(ds[d].values, prefix+roots[d]+suffix)
			}
		}
		if u, ok, _ := unstructured.NestedInt64(sm, "podCounts", "universal"); ok {
			for d := range ds {
				ds[d].pods = u
			}
		} else {
			counts, _, _ := unstructured.NestedSlice(sm, "podCounts", "individual")
			if len(counts) != len(ds) {
				return nil, nil, fmt.Errorf("slice %d has %d pod counts for %d domains", i, len(counts), len(ds))
			}
			for d := range ds {
				ds[d].pods, _ = counts[d].(int64)
			}
		}
		domains = append(domains, ds...)
	}
	return levels, domains, nil
}

// kqTopology is a Topology of the TPU7x levels Kueue's slice integration
// uses: block, 4x4x4 partition, host.
func kqTopology(t *testing.T, dyn dynamic.Interface, name string) {
	t.Helper()
	kqCreate(t, dyn, "topologies", "", "Topology", name, map[string]any{"levels": []any{
		map[string]any{"nodeLabel": wellknown.LabelTopologyBlock},
		map[string]any{"nodeLabel": wellknown.LabelPartitionID},
		map[string]any{"nodeLabel": wellknown.LabelHostname},
	}})
}

// tpuToleration is the toleration of the TPU nodes' taint, as a
// ResourceFlavor gives it.
var tpuToleration = map[string]any{"key": TaintTPU, "operator": "Exists", "effect": "NoSchedule"}

// With topology-aware scheduling, a Job whose pods require one block and
// slices of 16 pods in one 4x4x4 partition is admitted with a topology
// assignment of 16 hosts of one partition, and its pods run there (Kueue's
// scheduling gate holds each pod until Kueue pins it to its host). Kueue's
// TAS leaves out nodes whose NoSchedule taints neither the pod template
// nor the flavor tolerates; the TPU taint is tolerated only by pods (the
// ExtendedResourceToleration admission plugin adds it when a pod is
// created, not to the Job's template), so a TAS flavor of TPU nodes must
// tolerate it itself.
func TestKueueTopologyAwareScheduling(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	for _, sub := range []string{"sub-block-a1", "sub-block-a2"} {
		if err := createPool(t, svc, poolSpec("kq-tas-"+strings.TrimPrefix(sub, "sub-block-"), reservationPath("tpu7x-reservation", "block-a", sub), 16)); err != nil {
			t.Fatal(err)
		}
	}
	kube, dyn := testKube(t), testDynamic(t)
	ns := testNamespace(t, kube, "kueue-tas")
	kqTopology(t, dyn, "kq-tas")
	annotations := map[string]string{
		kueuePodSetRequiredTopo:  wellknown.LabelTopologyBlock,
		kueuePodSetSliceRequired: wellknown.LabelPartitionID,
		kueuePodSetSliceSize:     "16",
	}
	flavor := func(tolerations ...any) map[string]any {
		f := map[string]any{"nodeLabels": map[string]any{wellknown.LabelAccelerator: topology.SliceType}, "topologyName": "kq-tas"}
		if len(tolerations) > 0 {
			f["tolerations"] = tolerations
		}
		return f
	}

	t.Run("flavor without the TPU toleration", func(t *testing.T) {
		kqQueues(t, dyn, ns, "kq-tas-untolerated", flavor())
		job := kqJob(t, ns, "untolerated", "kq-tas-untolerated", 16, annotations)
		wl := kqWorkload(t, dyn, job)
		var msg string
		poll(t, 30*time.Second, func() (bool, string) {
			obj, err := dyn.Resource(kqRes("workloads")).Namespace(ns).Get(testContext(t), wl, metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			c, _ := kqCondition(obj, "QuotaReserved")
			msg, _ = c["message"].(string)
			return c["status"] == "False" && strings.Contains(msg, fmt.Sprintf("taint %q", TaintTPU+"=present:NoSchedule")),
				fmt.Sprintf("Workload %s: QuotaReserved %v; want False, the TPU taint named", wl, c)
		})
		t.Logf("Kueue's message: %s", msg)
	})

	t.Run("flavor with the TPU toleration", func(t *testing.T) {
		kqQueues(t, dyn, ns, "kq-tas", flavor(tpuToleration))
		job := kqJob(t, ns, "tas", "kq-tas", 16, annotations)
		wl := kqWorkload(t, dyn, job)
		obj := kqWaitCondition(t, dyn, kqRes("workloads"), ns, wl, "Admitted", "True")
		psa, _, _ := unstructured.NestedSlice(obj.Object, "status", "admission", "podSetAssignments")
		if len(psa) != 1 {
			t.Fatalf("pod set assignments %v", psa)
		}
		ta, ok, _ := unstructured.NestedMap(psa[0].(map[string]any), "topologyAssignment")
		if !ok {
			t.Fatalf("no topologyAssignment in %v", psa[0])
		}
		raw, _ := json.Marshal(ta)
		t.Logf("topologyAssignment: %s", raw)
		levels, domains, err := expandTopologyAssignment(ta)
		if err != nil {
			t.Fatal(err)
		}
		host := slices.Index(levels, wellknown.LabelHostname)
		if host < 0 {
			t.Fatalf("levels %v, want %s among them", levels, wellknown.LabelHostname)
		}
		nodes := map[string]corev1.Node{}
		for _, pool := range []string{"kq-tas-a1", "kq-tas-a2"} {
			for _, n := range poolNodes(t, pool) {
				nodes[n.Name] = n
			}
		}
		assigned := map[string]bool{}
		partitions := map[string]bool{}
		var total int64
		for _, d := range domains {
			n, ok := nodes[d.values[host]]
			if !ok {
				t.Errorf("domain %v is not a node of the two pools", d.values)
				continue
			}
			assigned[n.Name] = true
			partitions[n.Labels[wellknown.LabelPartitionID]] = true
			total += d.pods
		}
		if total != 16 || len(assigned) != 16 || len(partitions) != 1 {
			t.Errorf("topology assignment: %d pods on %d hosts of %d partitions; want 16 on 16 of 1", total, len(assigned), len(partitions))
		}

		pods := kqWaitJobComplete(t, ns, "tas")
		for _, p := range pods {
			if !assigned[p.Spec.NodeName] || p.Status.Phase != corev1.PodSucceeded {
				t.Errorf("pod %s on %q, %s; want on a host of the topology assignment, Succeeded", p.Name, p.Spec.NodeName, p.Status.Phase)
			}
			if slices.ContainsFunc(p.Spec.SchedulingGates, func(g corev1.PodSchedulingGate) bool { return g.Name == kueueTopologySchedulingGate }) {
				t.Errorf("pod %s still has Kueue's scheduling gate", p.Name)
			}
			if p.Spec.NodeSelector[wellknown.LabelHostname] != p.Spec.NodeName {
				t.Errorf("pod %s node selector %v; want %s=%s (Kueue pins each pod to its assigned host)", p.Name, p.Spec.NodeSelector, wellknown.LabelHostname, p.Spec.NodeName)
			}
		}
		if len(pods) > 0 {
			p := pods[0]
			t.Logf("a pod as Kueue started it: labels %v, annotations %v, node selector %v, tolerations %+v", p.Labels, p.Annotations, p.Spec.NodeSelector, p.Spec.Tolerations)
		}
		if j, err := kube.BatchV1().Jobs(ns).Get(testContext(t), "tas", metav1.GetOptions{}); err == nil {
			t.Logf("the Job's pod template as Kueue started it: scheduling gates %v, node selector %v, annotations %v", j.Spec.Template.Spec.SchedulingGates, j.Spec.Template.Spec.NodeSelector, j.Spec.Template.Annotations)
		}
		if len(pods) != 16 {
			t.Errorf("%d pods, want 16", len(pods))
		}
	})
}

// An AdmissionCheck holds a ClusterQueue inactive until its controller
// marks it Active, and then holds each Workload, with its quota reserved,
// until the controller sets the check's state Ready on the Workload: only
// then is the Workload admitted and its Job unsuspended. (Another
// controller name than the slice check's, whose controller the sandbox
// may emulate.)
func TestKueueAdmissionCheckGates(t *testing.T) {
	needSandbox(t)
	if err := createPool(t, newGKEService(t), poolSpec("kq-check-a1", reservationPath("tpu7x-reservation", "block-a", "sub-block-a1"), 16)); err != nil {
		t.Fatal(err)
	}
	kube, dyn := testKube(t), testDynamic(t)
	ns := testNamespace(t, kube, "kueue-check")
	kqCreate(t, dyn, "admissionchecks", "", "AdmissionCheck", "kq-check", map[string]any{"controllerName": "example.com/sandbox-test"})
	kqQueues(t, dyn, ns, "kq-check", map[string]any{"nodeLabels": map[string]any{wellknown.LabelAccelerator: topology.SliceType}}, "kq-check")

	cq := kqWaitCondition(t, dyn, kqRes("clusterqueues"), "", "kq-check", "Active", "False")
	c, _ := kqCondition(cq, "Active")
	if c["reason"] != "AdmissionCheckInactive" || !strings.Contains(fmt.Sprint(c["message"]), "kq-check") {
		t.Errorf("ClusterQueue Active condition %v; want False, AdmissionCheckInactive, naming the check", c)
	}
	t.Logf("ClusterQueue with an AdmissionCheck no controller marked Active: %v", c)

	// The check's controller marks it Active.
	checks := dyn.Resource(kqRes("admissionchecks"))
	ac, err := checks.Get(testContext(t), "kq-check", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := unstructured.SetNestedSlice(ac.Object, []any{map[string]any{
		"type": "Active", "status": "True", "reason": "Active", "message": "the test is the controller",
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
	}}, "status", "conditions"); err != nil {
		t.Fatal(err)
	}
	if _, err := checks.UpdateStatus(testContext(t), ac, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	kqWaitCondition(t, dyn, kqRes("clusterqueues"), "", "kq-check", "Active", "True")

	job := kqJob(t, ns, "checked", "kq-check", 4, nil)
	wl := kqWorkload(t, dyn, job)
	obj := kqWaitCondition(t, dyn, kqRes("workloads"), ns, wl, "QuotaReserved", "True")
	var states []any
	poll(t, 30*time.Second, func() (bool, string) {
		var err error
		if obj, err = dyn.Resource(kqRes("workloads")).Namespace(ns).Get(testContext(t), wl, metav1.GetOptions{}); err != nil {
			return false, err.Error()
		}
		states, _, _ = unstructured.NestedSlice(obj.Object, "status", "admissionChecks")
		return len(states) == 1, fmt.Sprintf("Workload %s admissionChecks %v", wl, states)
	})
	raw, _ := json.Marshal(states)
	t.Logf("status.admissionChecks with quota reserved: %s", raw)
	if s, _ := states[0].(map[string]any); s["name"] != "kq-check" || s["state"] != "Pending" {
		t.Errorf("admission check state %v; want kq-check Pending", s)
	}
	if c, _ := kqCondition(obj, "Admitted"); c != nil && c["status"] == "True" {
		t.Errorf("Workload admitted before its check is Ready: %v", c)
	}
	if j, err := kube.BatchV1().Jobs(ns).Get(testContext(t), "checked", metav1.GetOptions{}); err != nil || !ptr.Deref(j.Spec.Suspend, false) {
		t.Errorf("Job before its check is Ready: %v, suspended %v; want suspended", err, j != nil && ptr.Deref(j.Spec.Suspend, false))
	}

	// The controller sets the check Ready on the Workload, as a controller
	// does: on the Workload as it is now, again if Kueue wrote it meanwhile
	// (Kueue 0.19 may update its status right after reserving quota).
	workloads := dyn.Resource(kqRes("workloads")).Namespace(ns)
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := workloads.Get(testContext(t), wl, metav1.GetOptions{})
		if err != nil {
			return err
		}
		states, _, _ := unstructured.NestedSlice(cur.Object, "status", "admissionChecks")
		if len(states) != 1 {
			return fmt.Errorf("Workload %s admissionChecks %v, want one", wl, states)
		}
		s, _ := states[0].(map[string]any)
		s["state"] = "Ready"
		s["message"] = "ready"
		s["lastTransitionTime"] = time.Now().UTC().Format(time.RFC3339)
		if err := unstructured.SetNestedSlice(cur.Object, states, "status", "admissionChecks"); err != nil {
			return err
		}
		_, err = workloads.UpdateStatus(testContext(t), cur, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	kqWaitCondition(t, dyn, kqRes("workloads"), ns, wl, "Admitted", "True")
	kqWaitJobComplete(t, ns, "checked")
}
