package provider

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/terraform"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kueue"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dws"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The workloads of TestAccKueueOverflow: JobSets on one queue.

// overflowWirings are the wirings the test's JobSets take from
// provider::gke::kueue_workload (the outputs of kueueOverflowConfig): a
// 4x4x4 and a 2x2x2 slice, and the 2x2x2 flex_start wiring.
type overflowWirings struct{ slice4, slice2, flex podWiring }

func readOverflowWirings(s *terraform.State) (overflowWirings, error) {
	var w overflowWirings
	for name, dst := range map[string]*podWiring{"slice_4x4x4": &w.slice4, "slice_2x2x2": &w.slice2, "flex_2x2x2": &w.flex} {
		out, ok := s.RootModule().Outputs[name]
		if !ok {
			return w, fmt.Errorf("no output %q", name)
		}
		var err error
		if *dst, err = wiringOf(out.Value); err != nil {
			return w, fmt.Errorf("output %s: %w", name, err)
		}
	}
	return w, nil
}

// runOverflowWorkloads runs, on the queue kueueName() in ns, JobSets
// wired by kueue_workload: a 4x4x4 slice JobSet that takes the
// reservation's whole quota (a Slice); a 2x2x2 slice JobSet that does not
// fit and waits for the reservation, with Kueue's words, never on the flex
// flavor; a JobSet of the flex_start wiring admitted through its
// ProvisioningRequest on the flex nodes (no Slice); the waiting slice
// JobSet admitted on the reservation with a Slice once the first ends; a
// later slice JobSet that fits, on the reservation with a Slice; with no
// DWS capacity, a flex JobSet that waits with Kueue's and GKE's words; and
// no flex flavor with a Topology takes a slice JobSet either
// (checkSliceCannotUseDWS).
func runOverflowWorkloads(t *testing.T, ns string, s *terraform.State) error {
	w, err := readOverflowWirings(s)
	if err != nil {
		return err
	}
	queue := kueueName()
	submitJobSet(t, kueueJobSet(ns, "slice-a", queue, "4x4x4", w.slice4, 15*time.Second))
	if err := onFlavor(t, ns, "JobSet/slice-a", queue, 1); err != nil {
		return err
	}
	// The reservation is full: a slice JobSet waits for it, not for flex.
	submitJobSet(t, kueueJobSet(ns, "slice-c", queue, "2x2x2", w.slice2, time.Second))
	if err := sliceWaitsForReservation(t, ns, "JobSet/slice-c"); err != nil {
		return err
	}
	// A JobSet of the flex_start wiring: admitted on the flex flavor once
	// DWS provisions it.
	submitJobSet(t, kueueJobSet(ns, "flex-b", queue, "2x2x2", w.flex, 2*time.Second))
	if err := onFlavor(t, ns, "JobSet/flex-b", queue+kueue.OverflowSuffix, 0); err != nil {
		return err
	}
	if err := checkFlexPods(t, ns, "jobset.sigs.k8s.io/jobset-name=flex-b"); err != nil {
		return err
	}
	if r := readKueueWorkload(t, ns, "JobSet/slice-c"); r.Admitted {
		return fmt.Errorf("slice-c was admitted (%v) while slice-a holds the reservation: it went elsewhere", r.Conditions)
	}
	// slice-a ends: the reservation takes slice-c, with a Slice.
	if err := onFlavor(t, ns, "JobSet/slice-c", queue, 1); err != nil {
		return err
	}
	awaitKueueWorkload(t, ns, "JobSet/flex-b", func(w kueueWorkload) string {
		if !strings.HasPrefix(w.Conditions["Finished"], "True") {
			return "not finished"
		}
		return ""
	})
	// After the flex run, later work that fits goes to the reservation.
	submitJobSet(t, kueueJobSet(ns, "slice-e", queue, "2x2x2", w.slice2, time.Second))
	if err := onFlavor(t, ns, "JobSet/slice-e", queue, 1); err != nil {
		return err
	}
	if err := checkNoCapacity(t, ns, queue, w.flex); err != nil {
		return err
	}
	return checkSliceCannotUseDWS(t, ns, w.slice2)
}

// onFlavor waits for the workload to be admitted with slices Slices and
// checks that Kueue admitted it on flavor.
func onFlavor(t *testing.T, ns, workload, flavor string, slices int) error {
	t.Helper()
	awaitKueueWorkload(t, ns, workload, admittedWith(slices))
	if f := flavorOf(t, ns, workload); f != flavor {
		return fmt.Errorf("%s admitted on flavor %q, want %q", workload, f, flavor)
	}
	t.Logf("%s: admitted on flavor %s with %d Slice(s)", workload, flavor, slices)
	return nil
}

// sliceWaitsForReservation checks that a slice workload that does not fit
// the reservation is pending in the queue, with Kueue's words: the flex
// flavor is not a Topology Aware Scheduling flavor (a slice workload needs
// one), and the reservation's quota is used.
func sliceWaitsForReservation(t *testing.T, ns, workload string) error {
	t.Helper()
	flex, reservation := kueueName()+kueue.OverflowSuffix, kueueName()
	waiting := awaitKueueWorkload(t, ns, workload, func(w kueueWorkload) string {
		if w.Admitted || !strings.HasPrefix(w.Conditions["QuotaReserved"], "False") {
			return "not pending in the queue"
		}
		return ""
	})
	got := waiting.Conditions["QuotaReserved"]
	for _, want := range []string{
		fmt.Sprintf("Flavor %q does not support TopologyAwareScheduling", flex),
		"insufficient unused quota for google.com/tpu in flavor " + reservation,
	} {
		if !strings.Contains(got, want) {
			return fmt.Errorf("%s waits with QuotaReserved %q; want Kueue's words %q", workload, got, want)
		}
	}
	t.Logf("%s while the reservation is full: QuotaReserved %s", workload, got)
	return nil
}

// checkFlexPods checks that the pods of selector are bound to nodes DWS made
// for its ProvisioningRequest (Provisioned): queued, flex-start, of the
// flex pool, in no Slice.
func checkFlexPods(t *testing.T, ns, selector string) error {
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
	testsupport.Poll(t, time.Minute, 250*time.Millisecond, "the pods of "+selector+" to be bound", func() (bool, string, error) {
		pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
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
	t.Logf("%s: ProvisioningRequest %s Provisioned, 2 pods on its flex nodes", selector, provisioned)
	return nil
}

// checkNoCapacity submits a JobSet of the flex wiring with no DWS
// capacity: its ProvisioningRequest fails with GKE's words, and Kueue's
// admission check says so and keeps the JobSet waiting.
func checkNoCapacity(t *testing.T, ns, queue string, flex podWiring) error {
	t.Helper()
	prev := accSandbox.Faults()
	f := prev
	f.DWSCapacityUnavailable = true
	accFaults(t, f)
	submitJobSet(t, kueueJobSet(ns, "flex-d", queue, "2x2x2", flex, time.Second))
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
		w := readKueueWorkload(t, ns, "JobSet/flex-d")
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
	deleteJobSet(t, ns, "flex-d")
	testsupport.Poll(t, 2*time.Minute, 250*time.Millisecond, "the Workload of flex-d to be gone", func() (bool, string, error) {
		got := readKueueWorkload(t, ns, "JobSet/flex-d")
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
