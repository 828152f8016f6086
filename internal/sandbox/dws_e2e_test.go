package sandbox

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/dws"
)

// dwsQueues sets up Kueue's side of DWS for the queued pool pool: a
// ProvisioningRequestConfig of class queued-provisioning.gke.io for TPUs,
// an AdmissionCheck of Kueue's provisioning controller over it, and
// kqQueues' flavor (the pool's nodes, tolerating their queued taint),
// ClusterQueue (with the check) and LocalQueue, all named pool. retries
// is the config's retryStrategy.backoffLimitCount.
func dwsQueues(t *testing.T, ns, pool string, retries int64) {
	t.Helper()
	dyn := testDynamic(t)
	kqCreate(t, dyn, "provisioningrequestconfigs", "", "ProvisioningRequestConfig", pool, map[string]any{
		"provisioningClassName": dws.ClassQueuedProvisioning,
		"managedResources":      []any{string(ResourceTPU)},
		"parameters":            map[string]any{dws.ParamMaxRunDuration: "600"},
		"retryStrategy":         map[string]any{"backoffLimitCount": retries},
	})
	kqCreate(t, dyn, "admissionchecks", "", "AdmissionCheck", pool, map[string]any{
		"controllerName": "kueue.x-k8s.io/provisioning-request",
		"parameters":     map[string]any{"apiGroup": KueueGroup, "kind": "ProvisioningRequestConfig", "name": pool},
	})
	kqWaitCondition(t, dyn, kqRes("admissionchecks"), "", pool, "Active", "True")
	kqQueues(t, dyn, ns, pool, map[string]any{
		"nodeLabels":  map[string]any{dws.LabelNodePool: pool},
		"tolerations": []any{map[string]any{"key": dws.TaintQueued, "operator": "Equal", "value": "true", "effect": "NoSchedule"}},
	}, pool)
	kqWaitCondition(t, dyn, kqRes("clusterqueues"), "", pool, "Active", "True")
}

// dwsPool creates, through the emulated GKE API, a node pool of tpu7x
// 2x2x2 (2 hosts) with flex-start and queued provisioning, as
// terraform-provider-google sends it (autoscaling on, no reservation, no
// initial node), and checks that it has no node and that the emulated DWS
// knows it. The pool is deleted when the test ends.
func dwsPool(t *testing.T, name string) {
	t.Helper()
	spec := &container.NodePool{
		Name:               name,
		Locations:          []string{testSandbox.Inventory.Zone},
		QueuedProvisioning: &container.QueuedProvisioning{Enabled: true},
		Autoscaling:        &container.NodePoolAutoscaling{Enabled: true, TotalMaxNodeCount: 2, LocationPolicy: "ANY"},
		PlacementPolicy:    &container.PlacementPolicy{TpuTopology: "2x2x2"},
		Config: &container.NodeConfig{
			MachineType:         MachineType,
			FlexStart:           true,
			ReservationAffinity: &container.ReservationAffinity{ConsumeReservationType: "NO_RESERVATION"},
		},
	}
	// Runs after createPool's deletion of the pool.
	t.Cleanup(func() {
		if _, ok := testSandbox.DWS.QueuedPool(name); ok {
			t.Errorf("the emulated DWS still knows pool %s once it is deleted", name)
		}
	})
	if err := createPool(t, newGKEService(t), spec); err != nil {
		t.Fatalf("creating the queued pool %s: %v", name, err)
	}
	got, ok := testSandbox.DWS.QueuedPool(name)
	if !ok || !got.FlexStart || got.Topology != "2x2x2" || got.ChipsPerNode != 4 {
		t.Fatalf("the emulated DWS knows pool %s as %+v, %v; want flex-start, 2x2x2, 4 chips a node", name, got, ok)
	}
	if n := dwsNodes(t, name); len(n) != 0 {
		t.Fatalf("the queued pool has %d nodes once created; want none", len(n))
	}
}

// dwsNodes are the nodes of the pool.
func dwsNodes(t *testing.T, pool string) []corev1.Node {
	t.Helper()
	list, err := testKube(t).CoreV1().Nodes().List(testContext(t), metav1.ListOptions{LabelSelector: dws.LabelNodePool + "=" + pool})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// dwsRequest waits (30s) for the one ProvisioningRequest Kueue makes in ns
// to have the condition True, and returns it.
func dwsRequest(t *testing.T, ns, cond string) *unstructured.Unstructured {
	t.Helper()
	var req *unstructured.Unstructured
	poll(t, 30*time.Second, func() (bool, string) {
		list, err := testDynamic(t).Resource(dws.GVR).Namespace(ns).List(testContext(t), metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		if len(list.Items) != 1 {
			return false, fmt.Sprintf("%d ProvisioningRequests in %s, want 1 (see kueue.log in %s)", len(list.Items), ns, testSandbox.Dir)
		}
		req = &list.Items[0]
		c, _ := kqCondition(req, cond)
		return c["status"] == "True", fmt.Sprintf("ProvisioningRequest %s: %s is %v; status %v (see dws.log in %s)",
			req.GetName(), cond, c, req.Object["status"], testSandbox.Dir)
	})
	return req
}

// Kueue's ProvisioningRequest admission check admits a Job through a
// ProvisioningRequest that the emulated DWS provisions: the queued pool
// has no node until then; Kueue writes the request (class
// queued-provisioning.gke.io, the pods' template with the flavor's pool
// selector), DWS accepts it, creates two nodes tainted and labelled as
// GKE's, and marks it Provisioned; Kueue admits the Workload, the real
// scheduler binds the two pods to the two new nodes, kwok completes them,
// and the nodes go away when the run has ended.
func TestDWSProvisionsKueueWorkload(t *testing.T) {
	needSandbox(t)
	const pool = "dws-flex"
	dwsPool(t, pool)
	kube, dyn := testKube(t), testDynamic(t)
	ns := testNamespace(t, kube, "dws")
	dwsQueues(t, ns, pool, 3)

	job := kqJob(t, ns, "train", pool, 2, nil)
	wl := kqWorkload(t, dyn, job)
	req := dwsRequest(t, ns, dws.CondProvisioned)
	// The nodes exist once the request is Provisioned (and go when the
	// run ends, which kwok makes quick).
	nodes := map[string]bool{}
	for _, n := range dwsNodes(t, pool) {
		nodes[n.Name] = n.Labels[dws.LabelQueued] == "true" && n.Labels[dws.LabelFlexStart] == "true" && cloud.HasTaint(&n, dws.TaintQueued)
	}
	if len(nodes) != 2 {
		t.Errorf("the pool has %d nodes once provisioned; want 2 (tpu7x 2x2x2)", len(nodes))
	}
	if class, _, _ := unstructured.NestedString(req.Object, "spec", "provisioningClassName"); class != dws.ClassQueuedProvisioning {
		t.Errorf("ProvisioningRequest class %q, want %s", class, dws.ClassQueuedProvisioning)
	}
	if c, _ := kqCondition(req, dws.CondAccepted); c["status"] != "True" {
		t.Errorf("ProvisioningRequest Accepted %v, want True", c)
	}
	kqWaitCondition(t, dyn, kqRes("workloads"), ns, wl, "Admitted", "True")

	pods := kqWaitJobComplete(t, ns, "train")
	for _, p := range pods {
		if !nodes[p.Spec.NodeName] || p.Status.Phase != corev1.PodSucceeded {
			t.Errorf("pod %s on %q (%v), %s; want on a queued, flex-start, tainted node of %s, Succeeded", p.Name, p.Spec.NodeName, nodes, p.Status.Phase, pool)
		}
		if p.Annotations[dws.AnnotationConsume] != req.GetName() {
			t.Errorf("pod %s consumes %q; want the ProvisioningRequest %s (Kueue's pod set update)", p.Name, p.Annotations[dws.AnnotationConsume], req.GetName())
		}
	}
	poll(t, 30*time.Second, func() (bool, string) {
		left := dwsNodes(t, pool)
		return len(left) == 0, fmt.Sprintf("%d nodes of %s left after the run; want none", len(left), pool)
	})
}

// With capacity set as unavailable, DWS fails the request, and Kueue
// (told not to retry) rejects its admission check: the Workload is never
// admitted and the queued pool gets no node.
func TestDWSCapacityUnavailable(t *testing.T) {
	needSandbox(t)
	const pool = "dws-none"
	dwsPool(t, pool)
	// The fault as the control endpoint takes it.
	prev := testSandbox.Faults()
	t.Cleanup(func() { testSandbox.SetFaults(prev) })
	if code, body := control(t, http.MethodPut, "sandbox/faults", testSandbox.Token, map[string]any{"dwsCapacityUnavailable": true}); code != http.StatusOK {
		t.Fatalf("PUT /sandbox/faults: %d %s", code, body)
	}
	if !testSandbox.DWS.CapacityUnavailable() {
		t.Fatal("the emulated DWS does not honour dwsCapacityUnavailable")
	}
	kube, dyn := testKube(t), testDynamic(t)
	ns := testNamespace(t, kube, "dws-none")
	dwsQueues(t, ns, pool, 0)

	// Kueue deletes the failed request once it rejects the check: the
	// request is watched from before the Job is made.
	w, err := dyn.Resource(dws.GVR).Namespace(ns).Watch(testContext(t), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	job := kqJob(t, ns, "train", pool, 2, nil)
	wl := kqWorkload(t, dyn, job)
	failed := map[string]any(nil)
	for ev := range w.ResultChan() {
		if req, ok := ev.Object.(*unstructured.Unstructured); ok {
			if c, _ := kqCondition(req, dws.CondFailed); c["status"] == "True" {
				failed = c
				break
			}
		}
	}
	if failed["reason"] != dws.ReasonCapacityUnavailable {
		t.Errorf("ProvisioningRequest Failed %v, want reason %s (see dws.log in %s)", failed, dws.ReasonCapacityUnavailable, testSandbox.Dir)
	}
	poll(t, 30*time.Second, func() (bool, string) {
		obj, err := dyn.Resource(kqRes("workloads")).Namespace(ns).Get(testContext(t), wl, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		checks, _, _ := unstructured.NestedSlice(obj.Object, "status", "admissionChecks")
		for _, c := range checks {
			m, _ := c.(map[string]any)
			if m["name"] != pool {
				continue
			}
			// Rejected is brief: Kueue then evicts the Workload and resets
			// the check to Pending, saying what it was.
			msg, _ := m["message"].(string)
			if m["state"] == "Rejected" || (m["state"] == "Pending" && strings.Contains(msg, "Previously: Rejected")) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("Workload %s admission checks %v, want %s Rejected", wl, checks, pool)
	})
	obj, err := dyn.Resource(kqRes("workloads")).Namespace(ns).Get(testContext(t), wl, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := kqCondition(obj, "Admitted"); c["status"] == "True" {
		t.Errorf("Workload %s Admitted %v; want never admitted", wl, c)
	}
	if n := dwsNodes(t, pool); len(n) != 0 {
		t.Errorf("the pool has %d nodes; want none (no capacity)", len(n))
	}
}

// A pool with queued provisioning must come as GKE's do: no initial node,
// autoscaling on, no reservation; the emulated GKE refuses it otherwise
// (400) and the emulated DWS never learns of it.
func TestDWSQueuedPoolRefused(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	for name, change := range map[string]func(*container.NodePool){
		"dws-nodes":       func(p *container.NodePool) { p.InitialNodeCount = 1 },
		"dws-noscale":     func(p *container.NodePool) { p.Autoscaling = nil },
		"dws-reservation": func(p *container.NodePool) { p.Config.ReservationAffinity.ConsumeReservationType = "ANY_RESERVATION" },
	} {
		spec := &container.NodePool{
			Name:               name,
			QueuedProvisioning: &container.QueuedProvisioning{Enabled: true},
			Autoscaling:        &container.NodePoolAutoscaling{Enabled: true, TotalMaxNodeCount: 2},
			Config: &container.NodeConfig{MachineType: MachineType, FlexStart: true,
				ReservationAffinity: &container.ReservationAffinity{ConsumeReservationType: "NO_RESERVATION"}},
		}
		change(spec)
		err := createPool(t, svc, spec)
		var gerr *googleapi.Error
		if !errors.As(err, &gerr) || gerr.Code != http.StatusBadRequest {
			t.Errorf("%s: create = %v; want a 400", name, err)
		}
		if _, ok := testSandbox.DWS.QueuedPool(name); ok {
			t.Errorf("%s: the emulated DWS knows a refused pool", name)
		}
	}
}
