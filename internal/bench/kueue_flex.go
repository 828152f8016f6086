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
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dws"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// KueueFlex is the overflow flavor of the same queue (gke_kueue_slicing's
// overflow): a JobSet without a slice topology, admitted on the flex-start
// flavor through a ProvisioningRequest that the emulated Dynamic Workload
// Scheduler provisions; no Slice. Times from the JobSet's creation,
// medians over Runs.
type KueueFlex struct {
	Runs     int    `json:"runs"`
	Workload string `json:"workload"`
	Pods     int    `json:"pods"`
	// ProvisionDelayMs is the sandbox's emulated DWS time from Accepted to
	// Provisioned (GKE's is the capacity's).
	ProvisionDelayMs float64 `json:"provisionDelayMs"`
	// SubmitToProvisioned: its ProvisioningRequest Provisioned (nodes made).
	SubmitToProvisionedMs float64 `json:"submitToProvisionedMedianMs"`
	// SubmitToAdmitted: Kueue admitted it (the provisioning check Ready).
	SubmitToAdmittedMs float64 `json:"submitToAdmittedMedianMs"`
	// SubmitToBound: every pod bound to a node DWS made.
	SubmitToBoundMs    float64 `json:"submitToBoundMedianMs"`
	SubmitToBoundMaxMs float64 `json:"submitToBoundMaxMs"`
}

const (
	kueueFlexPool     = "bench-flex"
	kueueFlexTopology = "2x2x2"
)

// createFlexPool creates the flex-start pool with queued provisioning
// through the sandbox's GKE API, as google-beta's node pool does.
func (m *meter) createFlexPool(ctx context.Context) error {
	i := m.sb.Info()
	gke, err := container.NewService(ctx, option.WithEndpoint(i.GoogleURL),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: i.Token})))
	if err != nil {
		return err
	}
	t, _ := topology.ParseTPU7x(kueueFlexTopology)
	cluster := fmt.Sprintf("projects/%s/locations/%s/clusters/%s", i.Project, i.Region, i.Cluster)
	_, err = gke.Projects.Locations.Clusters.NodePools.Create(cluster, &container.CreateNodePoolRequest{NodePool: &container.NodePool{
		Name: kueueFlexPool, Locations: []string{i.Zone},
		QueuedProvisioning: &container.QueuedProvisioning{Enabled: true},
		Autoscaling:        &container.NodePoolAutoscaling{Enabled: true, TotalMaxNodeCount: int64(t.Hosts()), LocationPolicy: "ANY"},
		PlacementPolicy:    &container.PlacementPolicy{TpuTopology: kueueFlexTopology},
		Config: &container.NodeConfig{MachineType: sandbox.MachineType, FlexStart: true,
			ReservationAffinity: &container.ReservationAffinity{ConsumeReservationType: "NO_RESERVATION"}},
	}}).Context(ctx).Do()
	if err != nil {
		return fmt.Errorf("creating the flex-start pool %s: %w", kueueFlexPool, err)
	}
	return nil
}

// flexOverflow is the overflow of the bench's queue.
func flexOverflow() *kueue.KueueOverflow {
	t, _ := topology.ParseTPU7x(kueueFlexTopology)
	return &kueue.KueueOverflow{NodePools: []string{kueueFlexPool}, Topology: kueueFlexTopology, TPUQuota: int64(t.Chips()),
		MaxRunDuration: time.Hour, Retries: kueue.DefaultOverflowRetries}
}

// kueueFlex runs a flex JobSet runs times, one after the other.
func (m *meter) kueueFlex(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, runs int) (KueueFlex, error) {
	t, _ := topology.ParseTPU7x(kueueFlexTopology)
	out := KueueFlex{Runs: runs, Pods: t.Hosts(), Workload: fmt.Sprintf("JobSet of 1 Job of %d pods, no slice topology (%s flex-start pool)", t.Hosts(), kueueFlexTopology),
		ProvisionDelayMs: ms(sandbox.DWSProvisionDelay)}
	if d := m.sb.Faults().DWSProvisionDelayMs; d > 0 {
		out.ProvisionDelayMs = float64(d)
	}
	var provisioned, admitted, bound []float64
	for run := range runs {
		p, a, b, err := kueueFlexRun(ctx, kube, dyn, fmt.Sprintf("flex-%d", run), t)
		if err != nil {
			return out, err
		}
		provisioned, admitted, bound = append(provisioned, p), append(admitted, a), append(bound, b)
	}
	out.SubmitToProvisionedMs = percentile(provisioned, 50)
	out.SubmitToAdmittedMs = percentile(admitted, 50)
	out.SubmitToBoundMs = percentile(bound, 50)
	out.SubmitToBoundMaxMs = slices.Max(bound)
	return out, nil
}

// flexJobSet is a JobSet of one Job of a pod per host of t, without the
// slice-topology annotation: Kueue can admit it only on the flex flavor.
func flexJobSet(name string, t topology.Topology) *unstructured.Unstructured {
	hosts := int64(t.Hosts())
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
		"metadata": map[string]any{"name": name, "namespace": kueueBenchNamespace, "labels": map[string]any{kueue.LabelQueueName: kueueBenchName}},
		"spec": map[string]any{"replicatedJobs": []any{map[string]any{
			"name": "flex-job", "replicas": int64(1),
			"template": map[string]any{"spec": map[string]any{
				"parallelism": hosts, "completions": hosts, "backoffLimit": int64(0), "completionMode": "Indexed",
				"template": map[string]any{
					"metadata": map[string]any{"annotations": map[string]any{"pod-complete.stage.kwok.x-k8s.io/delay": kueueBenchPodRun}},
					"spec": map[string]any{
						"restartPolicy": "Never",
						"nodeSelector":  map[string]any{wellknown.LabelAccelerator: topology.SliceType, kueue.LabelTPUTopology: t.String()},
						"containers": []any{map[string]any{"name": "worker", "image": "python:3.12", "resources": map[string]any{
							"limits": map[string]any{wellknown.ResourceTPU: int64(4)}, "requests": map[string]any{wellknown.ResourceTPU: int64(4)},
						}}},
					},
				},
			}},
		}}},
	}}
}

// kueueFlexRun submits one flex JobSet and times it (ms): to its
// ProvisioningRequest Provisioned, to admitted, to every pod bound. It
// fails when the JobSet gets a Slice. It polls every 50 ms, within 3
// minutes, and waits for the JobSet's completion before it returns.
func kueueFlexRun(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface, name string, t topology.Topology) (provisioned, admitted, bound float64, err error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	jobsets := dyn.Resource(jobSetGVR).Namespace(kueueBenchNamespace)
	began := time.Now()
	if _, err := jobsets.Create(ctx, flexJobSet(name, t), metav1.CreateOptions{}); err != nil {
		return 0, 0, 0, fmt.Errorf("creating JobSet %s: %w", name, err)
	}
	defer func() {
		bg := metav1.DeletePropagationBackground
		_ = jobsets.Delete(context.Background(), name, metav1.DeleteOptions{PropagationPolicy: &bg})
	}()
	var workload string
	for {
		if err := ctx.Err(); err != nil {
			return 0, 0, 0, fmt.Errorf("flex JobSet %s (workload %q): provisioned %.0f ms, admitted %.0f ms, bound %.0f ms: %w", name, workload, provisioned, admitted, bound, err)
		}
		now := time.Now()
		if wl := workloadFor(ctx, dyn, name); wl != nil {
			workload = wl.GetName()
			if admitted == 0 && conditionTrue(wl, "Admitted") {
				admitted = ms(now.Sub(began))
			}
		}
		if provisioned == 0 && workload != "" && requestProvisioned(ctx, dyn, workload) {
			provisioned = ms(now.Sub(began))
		}
		if bound == 0 {
			pods, err := kube.CoreV1().Pods(kueueBenchNamespace).List(ctx, metav1.ListOptions{LabelSelector: "jobset.sigs.k8s.io/jobset-name=" + name})
			if err == nil && len(pods.Items) >= t.Hosts() && !slices.ContainsFunc(pods.Items, func(p corev1.Pod) bool { return p.Spec.NodeName == "" }) {
				bound = ms(now.Sub(began))
			}
		}
		if workload != "" {
			if n, err := slicesOf(ctx, dyn, workload); err == nil && n > 0 {
				return 0, 0, 0, fmt.Errorf("flex JobSet %s got %d Slice(s); DWS capacity forms none", name, n)
			}
		}
		if bound > 0 && admitted > 0 && provisioned > 0 {
			if obj, err := jobsets.Get(ctx, name, metav1.GetOptions{}); err == nil && conditionTrue(obj, "Completed") {
				return provisioned, admitted, bound, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// requestProvisioned says whether a ProvisioningRequest of the Workload is
// Provisioned (Kueue names them after the Workload).
func requestProvisioned(ctx context.Context, dyn dynamic.Interface, workload string) bool {
	list, err := dyn.Resource(dws.GVR).Namespace(kueueBenchNamespace).List(ctx, metav1.ListOptions{})
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

// writeKueueFlex writes the flex-start flavor's figures beside the
// reservation's (none in a report from before they were measured).
func (r *Report) writeKueueFlex(w printf) {
	f := r.Kueue.Flex
	if f == nil {
		return
	}
	w("\nOn the same queue, the flex-start flavor (`gke_kueue_slicing`'s `overflow`; the emulated DWS provisions a request %s after accepting it):\n\n", seconds(f.ProvisionDelayMs))
	w("| Workload | Runs | Submitted → ProvisioningRequest Provisioned | Submitted → admitted (no Slice) | Submitted → %d pods bound on DWS nodes |\n|---|---|---|---|---|\n", f.Pods)
	w("| %s | %d | %.2f s | %.2f s | %.2f s (slowest %.2f s) |\n", f.Workload, f.Runs, f.SubmitToProvisionedMs/1000, f.SubmitToAdmittedMs/1000, f.SubmitToBoundMs/1000, f.SubmitToBoundMaxMs/1000)
}
