package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// What the guide "Choosing a path" says of a slice workload and DWS
// capacity, checked against the real Kueue: no flavor of the flex nodes
// can hold it, even one with a Topology. Each case is a ClusterQueue of
// its own (made here, by hand, not by the provider) whose only flavor is
// the overflow's made a Topology Aware Scheduling flavor, with the
// overflow's ProvisioningRequest check.

// handMade is a Kueue object the test makes and deletes.
type handMade struct {
	resource, namespace, name string
}

func (h handMade) client(dyn dynamic.Interface) dynamic.ResourceInterface {
	if h.namespace != "" {
		return dyn.Resource(kernel.KueueGVR(h.resource)).Namespace(h.namespace)
	}
	return dyn.Resource(kernel.KueueGVR(h.resource))
}

// tasFlexQueue makes a ResourceFlavor name as the overflow's, with
// topologyName topo, a ClusterQueue name of only it (8 chips) with the
// overflow's ProvisioningRequest check, and a LocalQueue name in ns; it
// returns them in the order to delete them.
func tasFlexQueue(t *testing.T, ns, name, topo string) []handMade {
	t.Helper()
	_, dyn, _ := kubeClients(t)
	flex := kueueName() + kueue.OverflowSuffix
	spec, _, _ := unstructured.NestedMap(kueueObject(t, "resourceflavors", "", flex).Object, "spec")
	spec["topologyName"] = topo
	objs := []struct {
		h    handMade
		kind string
		spec map[string]any
	}{
		{handMade{"resourceflavors", "", name}, "ResourceFlavor", spec},
		{handMade{"clusterqueues", "", name}, "ClusterQueue", map[string]any{
			"namespaceSelector": map[string]any{},
			"resourceGroups": []any{map[string]any{"coveredResources": []any{"google.com/tpu"}, "flavors": []any{
				map[string]any{"name": name, "resources": []any{map[string]any{"name": "google.com/tpu", "nominalQuota": "8"}}},
			}}},
			"admissionChecksStrategy": map[string]any{"admissionChecks": []any{map[string]any{"name": flex, "onFlavors": []any{name}}}},
		}},
		{handMade{"localqueues", ns, name}, "LocalQueue", map[string]any{"clusterQueue": name}},
	}
	var made []handMade
	for _, o := range objs {
		md := map[string]any{"name": o.h.name}
		if o.h.namespace != "" {
			md["namespace"] = o.h.namespace
		}
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": kernel.KueueGroup + "/v1beta2", "kind": o.kind, "metadata": md, "spec": o.spec}}
		if _, err := o.h.client(dyn).Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s %s: %v", o.kind, o.h.name, err)
		}
		made = append([]handMade{o.h}, made...)
	}
	return made
}

// deleteHandMade deletes the objects in order, each gone before the next.
func deleteHandMade(t *testing.T, objs []handMade) {
	t.Helper()
	_, dyn, _ := kubeClients(t)
	for _, h := range objs {
		if err := h.client(dyn).Delete(context.Background(), h.name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("deleting %s %s: %v", h.resource, h.name, err)
		}
		testsupport.Poll(t, 2*time.Minute, 250*time.Millisecond, fmt.Sprintf("%s %s to be gone", h.resource, h.name), func() (bool, string, error) {
			_, err := h.client(dyn).Get(context.Background(), h.name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), fmt.Sprintf("get: %v", err), nil
		})
	}
}

// workloadEvent is the message of the first event of reason on the
// Workload ("" when none).
func workloadEvent(t *testing.T, ns, workload, reason string) string {
	t.Helper()
	kube, _, _ := kubeClients(t)
	evs, err := kube.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs.Items {
		if e.InvolvedObject.Kind == "Workload" && e.InvolvedObject.Name == workload && e.Reason == reason {
			return e.Message
		}
	}
	return ""
}

// checkSliceCannotUseDWS checks, with a 2x2x2 slice JobSet (wired as w):
// on a flex flavor with a Topology over labels the flex nodes carry,
// Kueue does not take it (the flavor lacks the levels it asks for); on one
// with the reservation's Topology, Kueue reserves the quota, DWS
// provisions the nodes, and Kueue still cannot place it on them (they
// carry no block or partition label) and never admits it.
func checkSliceCannotUseDWS(t *testing.T, ns string, w podWiring) error {
	t.Helper()
	_, dyn, _ := kubeClients(t)
	topo := handMade{"topologies", "", accName("acc-flex-nodes")}
	levels := []any{map[string]any{"nodeLabel": "cloud.google.com/gke-nodepool"}, map[string]any{"nodeLabel": "kubernetes.io/hostname"}}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": kernel.KueueGroup + "/v1beta2", "kind": "Topology",
		"metadata": map[string]any{"name": topo.name}, "spec": map[string]any{"levels": levels}}}
	if _, err := topo.client(dyn).Create(context.Background(), u, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("creating Topology %s: %w", topo.name, err)
	}
	byLabels := tasFlexQueue(t, ns, accName("acc-flex-tas-nodes"), topo.name)
	submitJobSet(t, kueueJobSet(ns, "tas-nodes", byLabels[0].name, "2x2x2", w, time.Second))
	waiting := awaitKueueWorkload(t, ns, "JobSet/tas-nodes", func(w kueueWorkload) string {
		if !strings.Contains(w.Conditions["QuotaReserved"], "does not contain the requested level") {
			return "QuotaReserved does not say the flavor lacks the level"
		}
		return ""
	})
	t.Logf("a slice JobSet on a flex flavor with a Topology over the flex nodes' labels: QuotaReserved %s", waiting.Conditions["QuotaReserved"])
	deleteJobSet(t, ns, "tas-nodes")

	byReservation := tasFlexQueue(t, ns, accName("acc-flex-tas-res"), kueueName())
	submitJobSet(t, kueueJobSet(ns, "tas-res", byReservation[0].name, "2x2x2", w, time.Second))
	var msg string
	got := awaitKueueWorkload(t, ns, "JobSet/tas-res", func(w kueueWorkload) string {
		if w.Admitted {
			return "admitted on a flex flavor"
		}
		msg = workloadEvent(t, ns, w.Name, "SecondPassFailed")
		if !strings.HasPrefix(w.Conditions["QuotaReserved"], "True") || !strings.Contains(w.Check, "provisioned") ||
			!strings.Contains(msg, "no topology domains at level: cloud.google.com/gce-topology-block") {
			return "not (quota reserved, Provisioned, SecondPassFailed on the block level)"
		}
		return ""
	})
	t.Logf("a slice JobSet on a flex flavor with the reservation's Topology: check %q; SecondPassFailed: %s", got.Check, msg)
	deleteJobSet(t, ns, "tas-res")
	testsupport.Poll(t, 2*time.Minute, 250*time.Millisecond, "the slice JobSets' Workloads to be gone", func() (bool, string, error) {
		a, b := readKueueWorkload(t, ns, "JobSet/tas-nodes"), readKueueWorkload(t, ns, "JobSet/tas-res")
		return a.Name == "" && b.Name == "", "Workloads " + a.Name + " " + b.Name, nil
	})
	deleteHandMade(t, append(append(byLabels, byReservation...), topo))
	return nil
}
