package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dws"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The workloads of TestAccKueueOverflow, on one queue.

// runOverflowWorkloads runs, on the queue kueueName() in ns: a 4x4x4
// slice Job that takes the reservation's whole quota (a Slice); a 2x2x2
// slice Job that waits for the reservation, not the flex flavor; a flex
// Job admitted through its ProvisioningRequest on the flex nodes (no
// Slice); the waiting slice Job admitted on the reservation with a Slice
// once the first ends; and, with no DWS capacity, a flex Job that waits
// with Kueue's and GKE's words.
func runOverflowWorkloads(t *testing.T, ns string) error {
	queue, flexFlavor := kueueName(), kueueName()+engine.OverflowSuffix
	submitKueueJob(t, kueueJob(ns, "slice-a", queue, "4x4x4", 15*time.Second))
	awaitKueueWorkload(t, ns, "slice-a", admittedWith(1))
	if f := flavorOf(t, ns, "slice-a"); f != queue {
		return fmt.Errorf("slice-a admitted on flavor %q, want the reservation's %q", f, queue)
	}
	// The reservation is full: a slice Job waits for it.
	submitKueueJob(t, kueueJob(ns, "slice-c", queue, "2x2x2", time.Second))
	waiting := awaitKueueWorkload(t, ns, "slice-c", func(w kueueWorkload) string {
		if w.Admitted || !strings.HasPrefix(w.Conditions["QuotaReserved"], "False") {
			return "not pending in the queue"
		}
		return ""
	})
	t.Logf("slice-c while the reservation is full: QuotaReserved %s", waiting.Conditions["QuotaReserved"])

	// A flex Job: admitted on the flex flavor once DWS provisions it.
	flex := kueueJob(ns, "flex-b", queue, "2x2x2", 2*time.Second)
	delete(flex.Spec.Template.Annotations, wellknown.AnnotationSliceTopology)
	submitKueueJob(t, flex)
	w := awaitKueueWorkload(t, ns, "flex-b", func(w kueueWorkload) string {
		if !w.Admitted {
			return "not admitted"
		}
		return ""
	})
	if len(w.Slices) != 0 {
		return fmt.Errorf("flex-b has Slices %v; DWS capacity forms none", w.Slices)
	}
	if f := flavorOf(t, ns, "flex-b"); f != flexFlavor {
		return fmt.Errorf("flex-b admitted on flavor %q, want %q", f, flexFlavor)
	}
	if err := checkFlexPods(t, ns, "flex-b"); err != nil {
		return err
	}
	if r := readKueueWorkload(t, ns, "slice-c"); r.Admitted {
		return fmt.Errorf("slice-c was admitted (%v) while slice-a holds the reservation: it went elsewhere", r.Conditions)
	}
	// slice-a ends: the reservation takes slice-c, with a Slice.
	awaitKueueWorkload(t, ns, "slice-c", admittedWith(1))
	if f := flavorOf(t, ns, "slice-c"); f != queue {
		return fmt.Errorf("slice-c admitted on flavor %q, want the reservation's %q", f, queue)
	}
	awaitKueueWorkload(t, ns, "flex-b", func(w kueueWorkload) string {
		if !strings.HasPrefix(w.Conditions["Finished"], "True") {
			return "not finished"
		}
		return ""
	})
	return checkNoCapacity(t, ns, queue)
}

// checkFlexPods checks that the Job's pods are bound to nodes DWS made
// for its ProvisioningRequest (Provisioned): queued, flex-start, of the
// flex pool, in no Slice.
func checkFlexPods(t *testing.T, ns, job string) error {
	t.Helper()
	kube, dyn, _ := kubeClients(t)
	ctx := context.Background()
	reqs, err := dyn.Resource(dws.GVR).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	provisioned := ""
	for _, r := range reqs.Items {
		if c := condition(&r, dws.CondProvisioned); strings.HasPrefix(c, "True") {
			provisioned = r.GetName()
		}
	}
	if provisioned == "" {
		return fmt.Errorf("no ProvisioningRequest in %s is Provisioned: %d requests", ns, len(reqs.Items))
	}
	var bound int
	testsupport.Poll(t, time.Minute, 250*time.Millisecond, "the pods of Job "+job+" to be bound", func() (bool, string, error) {
		pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "job-name=" + job})
		if err != nil {
			return false, "", err
		}
		bound = 0
		for _, p := range pods.Items {
			if p.Spec.NodeName == "" {
				continue
			}
			n, err := kube.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
			if err != nil {
				continue // gone once the run ended
			}
			if n.Labels[dws.LabelQueued] != "true" || n.Labels[dws.LabelFlexStart] != "true" || n.Labels[wellknown.LabelSlice] != "" {
				return false, "", fmt.Errorf("pod %s on node %s with labels %v; want a queued flex-start node in no Slice", p.Name, n.Name, n.Labels)
			}
			bound++
		}
		return bound == 2, fmt.Sprintf("%d of 2 pods bound to flex nodes", bound), nil
	})
	t.Logf("flex-b: ProvisioningRequest %s Provisioned, 2 pods on its flex nodes", provisioned)
	return nil
}

// checkNoCapacity submits a flex Job with no DWS capacity: its
// ProvisioningRequest fails with GKE's words, and Kueue's admission check
// says so and keeps the Job waiting.
func checkNoCapacity(t *testing.T, ns, queue string) error {
	t.Helper()
	prev := accSandbox.Faults()
	f := prev
	f.DWSCapacityUnavailable = true
	accFaults(t, f)
	flex := kueueJob(ns, "flex-d", queue, "2x2x2", time.Second)
	delete(flex.Spec.Template.Annotations, wellknown.AnnotationSliceTopology)
	submitKueueJob(t, flex)
	_, dyn, _ := kubeClients(t)
	var gke, kueue string
	testsupport.Poll(t, time.Minute, 250*time.Millisecond, "flex-d to wait with the reason", func() (bool, string, error) {
		reqs, err := dyn.Resource(dws.GVR).Namespace(ns).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, "", err
		}
		for _, r := range reqs.Items {
			if c := condition(&r, dws.CondFailed); strings.HasPrefix(c, "True") {
				gke = c
			}
		}
		w := readKueueWorkload(t, ns, "flex-d")
		if w.Name != "" {
			obj, err := dyn.Resource(sandbox.WorkloadGVR).Namespace(ns).Get(context.Background(), w.Name, metav1.GetOptions{})
			if err == nil {
				checks, _, _ := unstructured.NestedSlice(obj.Object, "status", "admissionChecks")
				for _, c := range checks {
					m, _ := c.(map[string]any)
					kueue = fmt.Sprintf("%v: %v", m["state"], m["message"])
				}
			}
			if w.Admitted {
				return false, "", fmt.Errorf("flex-d was admitted with no DWS capacity: %v", w.Conditions)
			}
		}
		return strings.Contains(gke, dws.ReasonCapacityUnavailable) && strings.Contains(kueue, "no capacity"),
			fmt.Sprintf("ProvisioningRequest Failed %q; Workload's check %q", gke, kueue), nil
	})
	t.Logf("flex-d with no DWS capacity: GKE: %s; Kueue: %s", gke, kueue)
	accSandbox.SetFaults(prev)
	// flex-d holds the queue's quota while it waits: the destroy that ends
	// the test is refused while it does (Queue Has Admitted Workloads).
	kube, _, _ := kubeClients(t)
	bg := metav1.DeletePropagationBackground
	if err := kube.BatchV1().Jobs(ns).Delete(context.Background(), "flex-d", metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil {
		return err
	}
	testsupport.Poll(t, 2*time.Minute, 250*time.Millisecond, "the Workload of flex-d to be gone", func() (bool, string, error) {
		got := readKueueWorkload(t, ns, "flex-d")
		return got.Name == "", "Workload " + got.Name + " is still there", nil
	})
	return nil
}

// condition is "status: reason: message" of a condition of obj ("" when
// it has none of that type).
func condition(obj *unstructured.Unstructured, typ string) string {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			return fmt.Sprintf("%v: %v: %v", m["status"], m["reason"], m["message"])
		}
	}
	return ""
}
