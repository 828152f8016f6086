package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/option"
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
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dws"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Kueue is slices on demand per JobSet on the Kueue path, with no
// Terraform: a JobSet queued on the node pools of the pool apply,
// admitted by the real Kueue, its Slices made by the slice admission
// check, its pods bound by the real scheduler; once its Jobs are done, its
// Slices deleted. Times from the JobSet's creation (and from its
// completion), medians over Runs.
type Kueue struct {
	Runs     int    `json:"runs"`
	Workload string `json:"workload"`
	Pods     int    `json:"pods"`
	// SliceActivationDelayMs is the sandbox's emulated slice formation
	// time (real formation time is GKE's).
	SliceActivationDelayMs float64 `json:"sliceActivationDelayMs"`
	// SubmitToAdmitted: Kueue admitted the Workload (the Slices ACTIVE).
	SubmitToAdmittedMs float64 `json:"submitToAdmittedMedianMs"`
	// SubmitToBound: every pod bound to a node of its slice.
	SubmitToBoundMs    float64 `json:"submitToBoundMedianMs"`
	SubmitToBoundMaxMs float64 `json:"submitToBoundMaxMs"`
	// CompleteToGone: from the JobSet's completion to its Slices deleted.
	CompleteToGoneMs float64 `json:"completeToSlicesGoneMedianMs"`
	// Flex is the flex-start flavor of the same queue.
	Flex *KueueFlex `json:"flex,omitempty"`
}

// KueueFlex is the overflow flavor of the same queue (gke_kueue_slicing's
// overflow): a JobSet without a slice topology, admitted on the flex-start
// flavor through a ProvisioningRequest that the emulated Dynamic Workload
// Scheduler provisions; no Slice.
type KueueFlex struct {
	Runs     int    `json:"runs"`
	Workload string `json:"workload"`
	Pods     int    `json:"pods"`
	// ProvisionDelayMs is the emulated DWS time from Accepted to
	// Provisioned.
	ProvisionDelayMs      float64 `json:"provisionDelayMs"`
	SubmitToProvisionedMs float64 `json:"submitToProvisionedMedianMs"`
	SubmitToAdmittedMs    float64 `json:"submitToAdmittedMedianMs"`
	SubmitToBoundMs       float64 `json:"submitToBoundMedianMs"`
	SubmitToBoundMaxMs    float64 `json:"submitToBoundMaxMs"`
}

const (
	kueueName      = "bench-tpu7x"
	kueueNamespace = "bench-kueue"
	kueueTopology  = "4x4x8"
	kueueJobs      = 2
	kueuePodRun    = "2s"
	flexPool       = "bench-flex"
	flexTopology   = "2x2x2"
)

var jobSetGVR = schema.GroupVersionResource{Group: "jobset.x-k8s.io", Version: "v1alpha2", Resource: "jobsets"}

// kueue sets up Kueue for dynamic slicing over the pools, with a
// flex-start pool as its overflow, as gke_kueue_slicing does (through the
// engine); runs a JobSet of kueueJobs slices of kueueTopology runs times,
// one after the other, then a flex JobSet runs times; and removes the
// Kueue objects.
func (m *meter) kueue(ctx context.Context, runs, pools int) (*Kueue, error) {
	t, _ := topology.ParseTPU7x(kueueTopology)
	ft, _ := topology.ParseTPU7x(flexTopology)
	out := &Kueue{Runs: runs, Workload: fmt.Sprintf("JobSet of %d Jobs, each on a %s slice", kueueJobs, kueueTopology),
		Pods: kueueJobs * t.Hosts(), SliceActivationDelayMs: float64(m.sb.Faults().SliceActivationDelayMs)}
	flex := &KueueFlex{Runs: runs, Pods: ft.Hosts(), ProvisionDelayMs: ms(sandbox.DWSProvisionDelay),
		Workload: fmt.Sprintf("JobSet of 1 Job of %d pods, no slice topology (%s flex-start pool)", ft.Hosts(), flexTopology)}
	if d := m.sb.Faults().DWSProvisionDelayMs; d > 0 {
		flex.ProvisionDelayMs = float64(d)
	}
	kube, err := kubernetes.NewForConfig(m.sb.RESTConfig())
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(m.sb.RESTConfig())
	if err != nil {
		return nil, err
	}
	if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: kueueNamespace}}, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	defer func() {
		_ = kube.CoreV1().Namespaces().Delete(context.Background(), kueueNamespace, metav1.DeleteOptions{})
	}()
	undo, err := m.setUpKueue(ctx, pools)
	if err != nil {
		return nil, err
	}
	defer undo()

	var admitted, bound, gone, fProvisioned, fAdmitted, fBound []float64
	for run := range runs {
		f := follower{kube: kube, dyn: dyn, name: fmt.Sprintf("on-demand-%d", run), pods: out.Pods}
		if err := f.follow(ctx, jobSet(f.name, kueueJobs, t, false)); err != nil {
			return nil, err
		}
		admitted, bound, gone = append(admitted, f.admitted), append(bound, f.bound), append(gone, f.gone)
	}
	for run := range runs {
		f := follower{kube: kube, dyn: dyn, name: fmt.Sprintf("flex-%d", run), pods: flex.Pods, flex: true}
		if err := f.follow(ctx, jobSet(f.name, 1, ft, true)); err != nil {
			return nil, fmt.Errorf("the flex-start flavor: %w", err)
		}
		fProvisioned, fAdmitted, fBound = append(fProvisioned, f.provisioned), append(fAdmitted, f.admitted), append(fBound, f.bound)
	}
	out.SubmitToAdmittedMs, out.CompleteToGoneMs = percentile(admitted, 50), percentile(gone, 50)
	out.SubmitToBoundMs, out.SubmitToBoundMaxMs = percentile(bound, 50), slices.Max(bound)
	flex.SubmitToProvisionedMs, flex.SubmitToAdmittedMs = percentile(fProvisioned, 50), percentile(fAdmitted, 50)
	flex.SubmitToBoundMs, flex.SubmitToBoundMaxMs = percentile(fBound, 50), slices.Max(fBound)
	out.Flex = flex
	return out, nil
}

// setUpKueue creates the flex-start pool with queued provisioning through
// the sandbox's GKE API, as google-beta's node pool does, and applies the
// Kueue objects through the engine; it returns what deletes them.
func (m *meter) setUpKueue(ctx context.Context, pools int) (func(), error) {
	i := m.sb.Info()
	gke, err := container.NewService(ctx, option.WithEndpoint(i.GoogleURL),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: i.Token})))
	if err != nil {
		return nil, err
	}
	ft, _ := topology.ParseTPU7x(flexTopology)
	cluster := fmt.Sprintf("projects/%s/locations/%s/clusters/%s", i.Project, i.Region, i.Cluster)
	if _, err = gke.Projects.Locations.Clusters.NodePools.Create(cluster, &container.CreateNodePoolRequest{NodePool: &container.NodePool{
		Name: flexPool, Locations: []string{i.Zone},
		QueuedProvisioning: &container.QueuedProvisioning{Enabled: true},
		Autoscaling:        &container.NodePoolAutoscaling{Enabled: true, TotalMaxNodeCount: int64(ft.Hosts()), LocationPolicy: "ANY"},
		PlacementPolicy:    &container.PlacementPolicy{TpuTopology: flexTopology},
		Config: &container.NodeConfig{MachineType: sandbox.MachineType, FlexStart: true,
			ReservationAffinity: &container.ReservationAffinity{ConsumeReservationType: "NO_RESERVATION"}},
	}}).Context(ctx).Do(); err != nil {
		return nil, fmt.Errorf("creating the flex-start pool %s: %w", flexPool, err)
	}
	set, err := clients.New(ctx, clients.Config{
		Project: i.Project, Location: i.Region, Cluster: i.Cluster, AccessToken: i.Token,
		ComputeEndpoint: i.GoogleURL, ContainerEndpoint: i.GoogleURL,
	}, clients.Options{})
	if err != nil {
		return nil, err
	}
	e := engine.New(set.Compute(), set.GKE(), clusterread.ClusterRef{Name: cluster}, set.Cluster, engine.Options{})
	k := kueue.KueueSlicing{Name: kueueName, Namespaces: []string{kueueNamespace}, TPUQuota: int64(pools * topology.ChipsPerPartition),
		Overflow: &kueue.KueueOverflow{NodePools: []string{flexPool}, Topology: flexTopology, TPUQuota: int64(ft.Chips()),
			MaxRunDuration: time.Hour, Retries: kueue.DefaultOverflowRetries}}
	if _, err := e.Kueue().ApplyKueueSlicing(ctx, k, nil); err != nil {
		e.Close()
		return nil, err
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_ = e.Kueue().DeleteKueueSlicing(ctx, k)
		e.Close()
	}, nil
}

// jobSet is a JobSet of replicas Jobs of a pod per host of t: on a slice
// of t (the slice-topology annotation), or for flex on the flex-start
// flavor (no annotation, a node selector of t's topology instead).
func jobSet(name string, replicas int, t topology.Topology, flex bool) *unstructured.Unstructured {
	hosts := int64(t.Hosts())
	annotations := map[string]any{"pod-complete.stage.kwok.x-k8s.io/delay": kueuePodRun}
	selector := map[string]any{wellknown.LabelAccelerator: topology.SliceType}
	if flex {
		selector[kueue.LabelTPUTopology] = t.String()
	} else {
		annotations[wellknown.AnnotationSliceTopology] = t.String()
		annotations["pod-complete.stage.kwok.x-k8s.io/jitter-delay"] = kueuePodRun
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
		"metadata": map[string]any{"name": name, "namespace": kueueNamespace, "labels": map[string]any{kueue.LabelQueueName: kueueName}},
		"spec": map[string]any{"replicatedJobs": []any{map[string]any{
			"name": "job", "replicas": int64(replicas),
			"template": map[string]any{"spec": map[string]any{
				"parallelism": hosts, "completions": hosts, "backoffLimit": int64(0), "completionMode": "Indexed",
				"template": map[string]any{
					"metadata": map[string]any{"annotations": annotations},
					"spec": map[string]any{
						"restartPolicy": "Never",
						"nodeSelector":  selector,
						"containers": []any{map[string]any{"name": "worker", "image": "python:3.12", "resources": map[string]any{
							"limits": map[string]any{wellknown.ResourceTPU: int64(4)}, "requests": map[string]any{wellknown.ResourceTPU: int64(4)},
						}}},
					},
				},
			}},
		}}},
	}}
}

// follower follows one JobSet from its creation: when (ms after it) its
// Workload was admitted, its ProvisioningRequest provisioned (flex), its
// pods all bound, and how long after its completion its Slices were gone.
type follower struct {
	kube                               kubernetes.Interface
	dyn                                dynamic.Interface
	name                               string
	pods                               int
	flex                               bool
	admitted, provisioned, bound, gone float64
}

// follow creates js and polls every 50 ms, within 3 minutes, until it has
// completed and (but for flex) its Slices are gone. A flex JobSet that
// gets a Slice fails: DWS capacity forms none.
func (f *follower) follow(ctx context.Context, js *unstructured.Unstructured) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	jobsets := f.dyn.Resource(jobSetGVR).Namespace(kueueNamespace)
	began := time.Now()
	if _, err := jobsets.Create(ctx, js, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating JobSet %s: %w", f.name, err)
	}
	defer func() {
		bg := metav1.DeletePropagationBackground
		_ = jobsets.Delete(context.Background(), f.name, metav1.DeleteOptions{PropagationPolicy: &bg})
	}()
	var workload string
	var completed time.Time
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("JobSet %s (workload %q): admitted %.0f ms, provisioned %.0f ms, bound %.0f ms, completed %v: %w",
				f.name, workload, f.admitted, f.provisioned, f.bound, !completed.IsZero(), err)
		}
		now := time.Now()
		if wl := f.workload(ctx); wl != nil {
			workload = wl.GetName()
			if f.admitted == 0 && conditionTrue(wl, "Admitted") {
				f.admitted = ms(now.Sub(began))
			}
		}
		if f.flex && f.provisioned == 0 && workload != "" && f.requestProvisioned(ctx, workload) {
			f.provisioned = ms(now.Sub(began))
		}
		if f.bound == 0 {
			pods, err := f.kube.CoreV1().Pods(kueueNamespace).List(ctx, metav1.ListOptions{LabelSelector: "jobset.sigs.k8s.io/jobset-name=" + f.name})
			if err == nil && len(pods.Items) >= f.pods && !slices.ContainsFunc(pods.Items, func(p corev1.Pod) bool { return p.Spec.NodeName == "" }) {
				f.bound = ms(now.Sub(began))
			}
		}
		if completed.IsZero() && f.bound > 0 {
			if obj, err := jobsets.Get(ctx, f.name, metav1.GetOptions{}); err == nil && conditionTrue(obj, "Completed") {
				completed = now
			}
		}
		if workload != "" {
			n, err := f.slicesOf(ctx, workload)
			switch {
			case err == nil && f.flex && n > 0:
				return fmt.Errorf("flex JobSet %s got %d Slice(s); DWS capacity forms none", f.name, n)
			case f.flex && !completed.IsZero() && f.admitted > 0 && f.provisioned > 0:
				return nil
			case err == nil && !f.flex && !completed.IsZero() && n == 0:
				f.gone = ms(now.Sub(completed))
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// workload is the JobSet's Workload, nil before Kueue made it.
func (f *follower) workload(ctx context.Context) *unstructured.Unstructured {
	list, err := f.dyn.Resource(sandbox.WorkloadGVR).Namespace(kueueNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil
	}
	for i := range list.Items {
		if o := metav1.GetControllerOf(&list.Items[i]); o != nil && o.Kind == "JobSet" && o.Name == f.name {
			return &list.Items[i]
		}
	}
	return nil
}

// slicesOf counts the Slices made for the Workload.
func (f *follower) slicesOf(ctx context.Context, workload string) (int, error) {
	list, err := f.dyn.Resource(kernel.SliceGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, s := range list.Items {
		a := s.GetAnnotations()
		if a[wellknown.AnnotationOwnerWorkloadNamespace] == kueueNamespace && a[wellknown.AnnotationOwnerWorkloadName] == workload {
			n++
		}
	}
	return n, nil
}

// requestProvisioned says whether a ProvisioningRequest of the Workload is
// Provisioned (Kueue names them after the Workload).
func (f *follower) requestProvisioned(ctx context.Context, workload string) bool {
	list, err := f.dyn.Resource(dws.GVR).Namespace(kueueNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false
	}
	for i := range list.Items {
		if strings.HasPrefix(list.Items[i].GetName(), workload) && conditionTrue(&list.Items[i], dws.CondProvisioned) {
			return true
		}
	}
	return false
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
