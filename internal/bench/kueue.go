package bench

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// KueueOnDemand is slices on demand per JobSet on the Kueue path: a JobSet
// queued on the node pools of the pool apply, admitted by the real Kueue,
// its Slices made by the slice admission check, its pods bound by the real
// scheduler; then, once its Jobs are done, its Slices deleted. Times from
// the JobSet's creation (and from its completion), medians over Runs.
type KueueOnDemand struct {
	Runs     int    `json:"runs"`
	Workload string `json:"workload"`
	Pods     int    `json:"pods"`
	// SliceActivationDelayMs is the sandbox's emulated slice formation
	// time (real formation time is GKE's).
	SliceActivationDelayMs float64 `json:"sliceActivationDelayMs"`
	// SubmitToAdmitted: Kueue admitted the Workload (quota reserved, TAS
	// assigned, the check Ready: the Slices are ACTIVE).
	SubmitToAdmittedMs float64 `json:"submitToAdmittedMedianMs"`
	// SubmitToBound: every pod bound to a node of its slice.
	SubmitToBoundMs    float64 `json:"submitToBoundMedianMs"`
	SubmitToBoundMaxMs float64 `json:"submitToBoundMaxMs"`
	// CompleteToGone: from the JobSet's completion to its Slices deleted.
	CompleteToGoneMs float64 `json:"completeToSlicesGoneMedianMs"`
	// Flex is the overflow flavor of the same queue (kueue_flex.go).
	Flex *KueueFlex `json:"flex,omitempty"`
	// Run says where these figures were measured when they come from a
	// run of their own (gke-bench -steps kueue), put into another run's
	// figures by MergeKueue; nil when the run that made the rest of the
	// figures also made these.
	Run *KueueRun `json:"run,omitempty"`
}

const (
	kueueBenchName      = "bench-tpu7x"
	kueueBenchNamespace = "bench-kueue"
	kueueBenchTopology  = "4x4x8"
	kueueBenchJobs      = 2
	kueueBenchPodRun    = "2s"
)

var jobSetGVR = schema.GroupVersionResource{Group: "jobset.x-k8s.io", Version: "v1alpha2", Resource: "jobsets"}

// kueueOnDemand sets up Kueue for dynamic slicing over the pools as
// gke_kueue_slicing does (through the engine), runs a JobSet of
// kueueBenchJobs slices of kueueBenchTopology runs times, one after the
// other, and removes the Kueue objects.
func (m *meter) kueueOnDemand(ctx context.Context, runs, pools int) (KueueOnDemand, error) {
	out := KueueOnDemand{Runs: runs, Workload: fmt.Sprintf("JobSet of %d Jobs, each on a %s slice", kueueBenchJobs, kueueBenchTopology)}
	t, _ := topology.ParseTPU7x(kueueBenchTopology)
	out.Pods = kueueBenchJobs * t.Hosts()
	out.SliceActivationDelayMs = float64(m.sb.Faults().SliceActivationDelayMs)

	cfg := m.sb.RESTConfig()
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return out, err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return out, err
	}
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: kueueBenchNamespace}}, metav1.CreateOptions{}); err != nil {
		return out, err
	}
	defer func() {
		_ = kube.CoreV1().Namespaces().Delete(context.Background(), kueueBenchNamespace, metav1.DeleteOptions{})
	}()

	i := m.sb.Info()
	set, err := clients.New(ctx, clients.Config{
		Project: i.Project, Location: i.Region, Cluster: i.Cluster, AccessToken: i.Token,
		ComputeEndpoint: i.GoogleURL, ContainerEndpoint: i.GoogleURL,
	}, clients.Options{})
	if err != nil {
		return out, err
	}
	e := engine.New(set.Compute(), set.GKE(), clusterread.ClusterRef{Name: "projects/" + i.Project + "/locations/" + i.Region + "/clusters/" + i.Cluster},
		set.Cluster, engine.Options{})
	defer e.Close()
	if err := m.createFlexPool(ctx); err != nil {
		return out, err
	}
	k := kueue.KueueSlicing{Name: kueueBenchName, Namespaces: []string{kueueBenchNamespace}, TPUQuota: int64(pools * topology.ChipsPerPartition),
		Overflow: flexOverflow()}
	if _, err := e.Kueue().ApplyKueueSlicing(ctx, k, nil); err != nil {
		return out, err
	}
	defer func() {
		delCtx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_ = e.Kueue().DeleteKueueSlicing(delCtx, k)
	}()

	var admitted, bound, gone []float64
	for run := range runs {
		a, b, g, err := kueueRun(ctx, kube, dyn, fmt.Sprintf("on-demand-%d", run), t)
		if err != nil {
			return out, err
		}
		admitted, bound, gone = append(admitted, a), append(bound, b), append(gone, g)
	}
	out.SubmitToAdmittedMs = percentile(admitted, 50)
	out.SubmitToBoundMs = percentile(bound, 50)
	out.SubmitToBoundMaxMs = slices.Max(bound)
	out.CompleteToGoneMs = percentile(gone, 50)
	flex, err := m.kueueFlex(ctx, kube, dyn, runs)
	if err != nil {
		return out, fmt.Errorf("the flex-start flavor: %w", err)
	}
	out.Flex = &flex
	return out, nil
}

// kueueRun submits one JobSet and times it: to admitted, to every pod
// bound, and from its completion to its Slices gone (ms). It polls every
// 50 ms, within 3 minutes.
func kueueRun(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, name string, t topology.Topology) (admitted, bound, gone float64, err error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	hosts := int64(t.Hosts())
	run := kueueBenchPodRun
	js := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
		"metadata": map[string]any{"name": name, "namespace": kueueBenchNamespace, "labels": map[string]any{kueue.LabelQueueName: kueueBenchName}},
		"spec": map[string]any{"replicatedJobs": []any{map[string]any{
			"name": "slice-job", "replicas": int64(kueueBenchJobs),
			"template": map[string]any{"spec": map[string]any{
				"parallelism": hosts, "completions": hosts, "backoffLimit": int64(0), "completionMode": "Indexed",
				"template": map[string]any{
					"metadata": map[string]any{"annotations": map[string]any{
						wellknown.AnnotationSliceTopology:               t.String(),
						"pod-complete.stage.kwok.x-k8s.io/delay":        run,
						"pod-complete.stage.kwok.x-k8s.io/jitter-delay": run,
					}},
					"spec": map[string]any{
						"restartPolicy": "Never",
						"nodeSelector":  map[string]any{wellknown.LabelAccelerator: topology.SliceType},
						"containers": []any{map[string]any{"name": "worker", "image": "python:3.12", "resources": map[string]any{
							"limits": map[string]any{wellknown.ResourceTPU: int64(4)}, "requests": map[string]any{wellknown.ResourceTPU: int64(4)},
						}}},
					},
				},
			}},
		}}},
	}}
	jobsets := dyn.Resource(jobSetGVR).Namespace(kueueBenchNamespace)
	began := time.Now()
	if _, err := jobsets.Create(ctx, js, metav1.CreateOptions{}); err != nil {
		return 0, 0, 0, fmt.Errorf("creating JobSet %s: %w", name, err)
	}
	defer func() {
		bg := metav1.DeletePropagationBackground
		_ = jobsets.Delete(context.Background(), name, metav1.DeleteOptions{PropagationPolicy: &bg})
	}()
	var workload string
	var completed time.Time
	want := int(hosts) * kueueBenchJobs
	for {
		if err := ctx.Err(); err != nil {
			return 0, 0, 0, fmt.Errorf("JobSet %s (workload %q): admitted %.0f ms, bound %.0f ms, completed %v: %w", name, workload, admitted, bound, !completed.IsZero(), err)
		}
		now := time.Now()
		if admitted == 0 {
			if wl := workloadFor(ctx, dyn, name); wl != nil && conditionTrue(wl, "Admitted") {
				workload, admitted = wl.GetName(), ms(now.Sub(began))
			}
		}
		if bound == 0 {
			pods, err := kube.CoreV1().Pods(kueueBenchNamespace).List(ctx, metav1.ListOptions{LabelSelector: "jobset.sigs.k8s.io/jobset-name=" + name})
			if err == nil && len(pods.Items) >= want && !slices.ContainsFunc(pods.Items, func(p corev1.Pod) bool { return p.Spec.NodeName == "" }) {
				bound = ms(now.Sub(began))
			}
		}
		if completed.IsZero() {
			if obj, err := jobsets.Get(ctx, name, metav1.GetOptions{}); err == nil && conditionTrue(obj, "Completed") {
				completed = now
			}
		}
		if !completed.IsZero() && workload != "" {
			if n, err := slicesOf(ctx, dyn, workload); err == nil && n == 0 {
				return admitted, bound, ms(now.Sub(completed)), nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func workloadFor(ctx context.Context, dyn dynamic.Interface, jobSet string) *unstructured.Unstructured {
	list, err := dyn.Resource(sandbox.WorkloadGVR).Namespace(kueueBenchNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	for i := range list.Items {
		if o := metav1.GetControllerOf(&list.Items[i]); o != nil && o.Kind == "JobSet" && o.Name == jobSet {
			return &list.Items[i]
		}
	}
	return nil
}

// slicesOf counts the Slices made for the Workload.
func slicesOf(ctx context.Context, dyn dynamic.Interface, workload string) (int, error) {
	list, err := dyn.Resource(kernel.SliceGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range list.Items {
		a := s.GetAnnotations()
		if a[wellknown.AnnotationOwnerWorkloadNamespace] == kueueBenchNamespace && a[wellknown.AnnotationOwnerWorkloadName] == workload {
			n++
		}
	}
	return n, nil
}

func conditionTrue(obj *unstructured.Unstructured, typ string) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		if m, _ := c.(map[string]any); m["type"] == typ {
			return m["status"] == "True"
		}
	}
	return false
}
