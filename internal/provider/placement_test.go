package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/tpuslice"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// jobPlacement is where the pods of one Job landed.
type jobPlacement struct {
	Pods int
	// Slices counts the Job's pods by the slice label of their node ("" for
	// a node of no slice).
	Slices map[string]int
	// Nodes are the nodes the pods are bound to.
	Nodes map[string]bool
	// Claims counts the pods whose ResourceClaims are allocated on their
	// own node.
	Claims int
}

// onlySlice is the one slice every pod of the Job landed on, or "" with
// the reason when they did not all land on one.
func (p jobPlacement) onlySlice() (string, string) {
	if len(p.Slices) != 1 {
		return "", fmt.Sprintf("pods on slices %v", p.Slices)
	}
	for s := range p.Slices {
		if s == "" {
			return "", "pods on nodes of no slice"
		}
		return s, ""
	}
	return "", ""
}

// kubeClients are the sandbox administrator's clients.
func kubeClients(t *testing.T) (kubernetes.Interface, *dynamic.DynamicClient, *restmapper.DeferredDiscoveryRESTMapper) {
	t.Helper()
	cfg := accRESTConfig(t)
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return kube, dyn, restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
}

// claimRecorder records, from a watch on a namespace's ResourceClaims,
// each claim the scheduler allocated: the claim controller deletes the
// claims of a pod once it has finished, so they are gone by the time the
// Jobs are complete.
type claimRecorder struct {
	mu sync.Mutex
	// byPod maps a pod's name to the allocations of its claims.
	byPod map[string][]*resourcev1.AllocationResult
}

// recorders are the claim recorders by namespace.
var recorders sync.Map

func recordClaims(t *testing.T, kube kubernetes.Interface, ns string) {
	t.Helper()
	w, err := kube.ResourceV1().ResourceClaims(ns).Watch(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	rec := &claimRecorder{byPod: map[string][]*resourcev1.AllocationResult{}}
	recorders.Store(ns, rec)
	go func() {
		for ev := range w.ResultChan() {
			c, ok := ev.Object.(*resourcev1.ResourceClaim)
			if !ok || c.Status.Allocation == nil {
				continue
			}
			for _, ref := range c.OwnerReferences {
				if ref.Kind == "Pod" {
					rec.mu.Lock()
					rec.byPod[ref.Name] = append(rec.byPod[ref.Name], c.Status.Allocation)
					rec.mu.Unlock()
				}
			}
		}
	}()
}

// applyWorkloads creates the objects of the manifests (YAML or JSON
// documents separated by ---) in a new namespace, deleted when the test
// ends, and returns the namespace.
func applyWorkloads(t *testing.T, manifests string) string {
	t.Helper()
	kube, dyn, mapper := kubeClients(t)
	ctx := context.Background()
	ns := fmt.Sprintf("wl-%d", time.Now().UnixNano()%1_000_000_000)
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Foreground: the Jobs' pods go with the namespace.
		_ = kube.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
	})
	recordClaims(t, kube, ns)
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(manifests), 4096)
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decoding the manifests: %v\n%s", err, manifests)
		}
		if len(obj) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		gvk := u.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("no API for %s: %v", gvk, err)
		}
		if _, err := dyn.Resource(mapping.Resource).Namespace(ns).Create(ctx, u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s %s: %v", gvk.Kind, u.GetName(), err)
		}
	}
	return ns
}

// waitPlaced waits (up to three minutes) until the namespace has jobs Jobs
// that all completed, every pod bound, and returns where each Job's pods
// landed. It fails with every pending pod's scheduling condition when
// they do not.
func waitPlaced(t *testing.T, ns string, jobs int) map[string]jobPlacement {
	t.Helper()
	kube, _, _ := kubeClients(t)
	ctx := context.Background()
	var placed map[string]jobPlacement
	testsupport.Poll(t, 3*time.Minute, 500*time.Millisecond, fmt.Sprintf("the workloads in namespace %s to be all placed and complete", ns), func() (bool, string, error) {
		var why string
		var err error
		placed, why, err = placement(ctx, kube, ns, jobs)
		return err == nil && why == "", why, err
	})
	return placed
}

// placement reads where the namespace's pods are, or why they are not all
// placed and complete yet.
func placement(ctx context.Context, kube kubernetes.Interface, ns string, want int) (map[string]jobPlacement, string, error) {
	jobList, err := kube.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, "", err
	}
	if len(jobList.Items) != want {
		return nil, fmt.Sprintf("%d Jobs, want %d", len(jobList.Items), want), nil
	}
	pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, "", err
	}
	var pending []string
	out := map[string]jobPlacement{}
	nodes := map[string]*corev1.Node{}
	for i := range pods.Items {
		pod := &pods.Items[i]
		if pod.Spec.NodeName == "" {
			pending = append(pending, pod.Name+": "+scheduleCondition(pod))
			continue
		}
		node, ok := nodes[pod.Spec.NodeName]
		if !ok {
			if node, err = kube.CoreV1().Nodes().Get(ctx, pod.Spec.NodeName, metav1.GetOptions{}); err != nil {
				return nil, "", err
			}
			nodes[pod.Spec.NodeName] = node
		}
		job := pod.Labels[batchv1.JobNameLabel]
		p := out[job]
		if p.Slices == nil {
			p.Slices, p.Nodes = map[string]int{}, map[string]bool{}
		}
		p.Pods++
		p.Slices[node.Labels[wellknown.LabelSlice]]++
		p.Nodes[node.Name] = true
		if claimsOnNode(ns, pod) {
			p.Claims++
		}
		out[job] = p
	}
	if len(pending) > 0 {
		sort.Strings(pending)
		return nil, fmt.Sprintf("%d pod(s) not bound: %s", len(pending), strings.Join(pending, "; ")), nil
	}
	for _, j := range jobList.Items {
		if !testsupport.JobComplete(&j) {
			return nil, fmt.Sprintf("Job %s not complete (%d succeeded, %d active, %d failed)", j.Name, j.Status.Succeeded, j.Status.Active, j.Status.Failed), nil
		}
	}
	return out, "", nil
}

// claimsOnNode says whether the pod had ResourceClaims, each allocated
// every chip of the node the pod is bound to (as the namespace's claim
// recorder saw them).
func claimsOnNode(ns string, pod *corev1.Pod) bool {
	v, ok := recorders.Load(ns)
	if !ok || len(pod.Spec.ResourceClaims) == 0 {
		return false
	}
	rec := v.(*claimRecorder)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	allocs := rec.byPod[pod.Name]
	if len(allocs) < len(pod.Spec.ResourceClaims) {
		return false
	}
	for _, a := range allocs {
		// All the host's chips, on the pod's node.
		if a.NodeSelector == nil || !selectsNode(a.NodeSelector, pod.Spec.NodeName) || len(a.Devices.Results) != topology.ChipsPerHost {
			return false
		}
	}
	return true
}

// selectsNode says whether an allocation's node selector names the node
// by its metadata.name field, as the scheduler writes it for devices of a
// node-local ResourceSlice.
func selectsNode(sel *corev1.NodeSelector, node string) bool {
	for _, term := range sel.NodeSelectorTerms {
		for _, f := range term.MatchFields {
			if f.Key == "metadata.name" && len(f.Values) == 1 && f.Values[0] == node {
				return true
			}
		}
	}
	return false
}

func scheduleCondition(pod *corev1.Pod) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return fmt.Sprintf("PodScheduled=%s %s: %s", c.Status, c.Reason, c.Message)
		}
	}
	return "no PodScheduled condition yet"
}

// checkOnSlices checks that each Job's pods (hosts of them) all landed on
// one slice, each Job on its own slice, and that the slices are the given
// ones when named; it returns the slice of each Job.
func checkOnSlices(t *testing.T, placed map[string]jobPlacement, hosts map[string]int) map[string]string {
	t.Helper()
	slices := map[string]string{}
	used := map[string]string{}
	for job, p := range placed {
		s, why := p.onlySlice()
		if why != "" {
			t.Errorf("Job %s: %s", job, why)
			continue
		}
		if other, ok := used[s]; ok {
			t.Errorf("Jobs %s and %s share slice %s", job, other, s)
		}
		used[s] = job
		slices[job] = s
		if want, ok := hosts[s]; ok && p.Pods != want {
			t.Errorf("Job %s has %d pods on slice %s, want one per host (%d)", job, p.Pods, s, want)
		}
		// Pods may share a node over time (kwok finishes a pod in seconds,
		// and a Job's later pods may land where an earlier one finished),
		// never beyond the slice's hosts.
		if want, ok := hosts[s]; ok && len(p.Nodes) > want {
			t.Errorf("Job %s used %d nodes of slice %s, which has %d hosts", job, len(p.Nodes), s, want)
		}
	}
	return slices
}

// A workload wired to a slice that is not ACTIVE yet stays Pending, with
// the real scheduler's reason (no node carries the slice's label), and is
// placed on the slice's hosts as soon as the slice controller makes it
// ACTIVE: the wiring gke_tpu_slice computes is what the scheduler needs.
func TestAccWorkloadWaitsForActiveSlice(t *testing.T) {
	needSandboxControl(t, "a slice activation the sandbox delays")
	const slice = "late-slice"
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy:             checkPoolsDestroyed(t),
		Steps: []tfresource.TestStep{{
			Config: accConfig(slicePools("late", "tpu7x-reservation", "block-a", "sub-block-a1")),
			Check: func(s *terraform.State) error {
				partition := s.RootModule().Resources["gke_subblock_node_pool.sub-block-a1"].Primary.Attributes["partition_id"]
				accFaults(t, sandbox.Faults{SliceActivationDelayMs: 15000})
				_, dyn, _ := kubeClients(t)
				ctx := context.Background()
				obj := &unstructured.Unstructured{Object: map[string]any{
					"apiVersion": "accelerator.gke.io/v1beta1", "kind": "Slice",
					"metadata": map[string]any{"name": slice},
					"spec":     map[string]any{"type": "tpu7x", "topology": "4x4x4", "partitionIds": []any{partition}},
				}}
				if _, err := dyn.Resource(kernel.SliceGVR).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
					return err
				}
				t.Cleanup(func() {
					_, _ = accEngine(t).Slices().DeleteSlice(context.Background(), slice, false)
				})
				shape, err := tpuslice.ShapeOf(slice, "4x4x4")
				if err != nil {
					return err
				}
				w := tpuslice.WiringOf(slice, clusterread.DevicePlugin)
				job := fmt.Sprintf(`{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "late"},
  "spec": {"parallelism": %d, "completions": %d, "completionMode": "Indexed", "backoffLimit": 0,
    "template": {"metadata": {"annotations": %s}, "spec": {"restartPolicy": "Never", "nodeSelector": %s,
      "containers": [{"name": "w", "image": "python:3.12", "resources": {"requests": %s, "limits": %s}}]}}}}`,
					shape.Hosts, shape.Hosts, jsonOf(shape.PodAnnotations), jsonOf(shape.NodeSelector), jsonOf(w.TPUResources), jsonOf(w.TPUResources))
				ns := applyWorkloads(t, job)

				kube, _, _ := kubeClients(t)
				reason := waitUnschedulable(t, kube, ns)
				if !strings.Contains(reason, "didn't match Pod's node affinity/selector") {
					t.Errorf("the pending pods' reason is %q, want the scheduler's node-selector mismatch", reason)
				}
				if sl, err := accEngine(t).Slices().ReadSlice(ctx, slice); err != nil || sl.State == clusterread.SliceActive {
					t.Errorf("slice %s is %v (%v) while the pods wait; the test needs it not ACTIVE yet", slice, sl, err)
				}
				t.Logf("while %s forms, the Job's pods wait: %s", slice, reason)
				placed := waitPlaced(t, ns, 1)
				checkOnSlices(t, placed, map[string]int{slice: shape.Hosts})
				return nil
			},
		}},
	})
}

// waitUnschedulable waits (up to a minute) until a pod of the namespace
// is marked unschedulable by the scheduler, and returns its message.
func waitUnschedulable(t *testing.T, kube kubernetes.Interface, ns string) string {
	t.Helper()
	var message string
	testsupport.Poll(t, time.Minute, 200*time.Millisecond, fmt.Sprintf("a pod of namespace %s to be marked unschedulable", ns), func() (bool, string, error) {
		pods, err := kube.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pods.Items {
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
					message = c.Message
					return true, "", nil
				}
			}
			if p.Spec.NodeName != "" {
				t.Fatalf("pod %s was bound to %s before its slice was ACTIVE", p.Name, p.Spec.NodeName)
			}
		}
		return false, fmt.Sprintf("no pod of namespace %s was marked unschedulable (%d pods)", ns, len(pods.Items)), nil
	})
	return message
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
