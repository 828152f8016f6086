package provider

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// podWiring is what a pod of a workload carries on the Kueue path: the
// annotations and node selector of provider::gke::kueue_workload (its
// top level for the reservation, its flex_start for the overflow flavor).
type podWiring struct {
	Annotations  map[string]string
	NodeSelector map[string]string
}

// wiringOf reads a wiring from the value of a kueue_workload output in
// the state (its pod_annotations and node_selector).
func wiringOf(v any) (podWiring, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return podWiring{}, fmt.Errorf("the wiring %v is not an object", v)
	}
	strs := func(key string) map[string]string {
		out := map[string]string{}
		in, _ := m[key].(map[string]any)
		for k, s := range in {
			out[k] = fmt.Sprint(s)
		}
		return out
	}
	return podWiring{Annotations: strs("pod_annotations"), NodeSelector: strs("node_selector")}, nil
}

// kueueJobSet is a JobSet in LocalQueue queue of one Job of a pod per
// host of topo, 4 chips each, wired by w, each pod running for runFor.
func kueueJobSet(ns, name, queue, topo string, w podWiring, runFor time.Duration) *unstructured.Unstructured {
	t, _ := topology.ParseTPU7x(topo)
	hosts := int64(t.Hosts())
	annotations := map[string]any{
		"pod-complete.stage.kwok.x-k8s.io/delay":        runFor.String(),
		"pod-complete.stage.kwok.x-k8s.io/jitter-delay": runFor.String(),
	}
	for k, v := range w.Annotations {
		annotations[k] = v
	}
	selector := map[string]any{}
	for k, v := range w.NodeSelector {
		selector[k] = v
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{kueue.LabelQueueName: queue}},
		"spec": map[string]any{"replicatedJobs": []any{map[string]any{
			"name": "worker", "replicas": int64(1),
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

// submitJobSet creates the JobSet (deleted after the test).
func submitJobSet(t *testing.T, js *unstructured.Unstructured) {
	t.Helper()
	_, dyn, _ := kubeClients(t)
	if _, err := dyn.Resource(jobSetGVR).Namespace(js.GetNamespace()).Create(context.Background(), js, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating JobSet %s/%s: %v", js.GetNamespace(), js.GetName(), err)
	}
	ns, name := js.GetNamespace(), js.GetName()
	t.Cleanup(func() { deleteJobSet(t, ns, name) })
}
