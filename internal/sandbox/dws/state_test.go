package dws

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var byPool = map[string]string{LabelNodePool: "flex"}

func TestAcceptedThenProvisionedAfterTheDelay(t *testing.T) {
	f := newFixture(t, template("ppt-a", byPool))
	f.create("a", ClassQueuedProvisioning, "ppt-a", 2, nil)
	f.sync()
	f.wantCondition("a", CondAccepted, metav1.ConditionTrue, ReasonAccepted)
	f.wantCondition("a", CondProvisioned, metav1.ConditionFalse, ReasonNotProvisioned)
	if n := f.nodes(); len(n) != 0 {
		t.Fatalf("nodes before the delay: %d, want 0", len(n))
	}
	f.now = f.now.Add(9 * time.Second)
	f.sync()
	f.wantCondition("a", CondProvisioned, metav1.ConditionFalse, ReasonNotProvisioned)
	f.now = f.now.Add(time.Second)
	f.sync()
	f.wantCondition("a", CondProvisioned, metav1.ConditionTrue, ReasonProvisioned)
	nodes := f.nodes()
	if len(nodes) != 2 {
		t.Fatalf("nodes: %d, want 2", len(nodes))
	}
	for _, n := range nodes {
		wantNode(t, &n)
	}
	// Later syncs change nothing.
	f.sync()
	if len(f.nodes()) != 2 {
		t.Fatalf("nodes after another sync: %d, want 2", len(f.nodes()))
	}
}

// wantNode checks a provisioned node of flexPool.
func wantNode(t *testing.T, n *corev1.Node) {
	t.Helper()
	want := map[string]string{
		LabelNodePool: "flex", LabelQueued: "true", LabelFlexStart: "true", LabelAccelerator: "tpu7x",
		LabelTopology: "2x2x2", LabelMachineType: "tpu7x-standard-4t", LabelZone: "us-central1-a", LabelHostname: n.Name,
	}
	for k, v := range want {
		if n.Labels[k] != v {
			t.Errorf("node %s label %s = %q, want %q", n.Name, k, n.Labels[k], v)
		}
	}
	taints := map[string]string{}
	for _, tn := range n.Spec.Taints {
		if tn.Effect == corev1.TaintEffectNoSchedule {
			taints[tn.Key] = tn.Value
		}
	}
	if taints[TaintQueued] != "true" || taints[TaintTPU] != "present" {
		t.Errorf("node %s NoSchedule taints = %v, want %s=true and %s=present", n.Name, taints, TaintQueued, TaintTPU)
	}
	if q := n.Status.Allocatable[ResourceTPU]; q.Value() != 4 {
		t.Errorf("node %s allocatable %s = %s, want 4", n.Name, ResourceTPU, q.String())
	}
}

func TestCapacityUnavailableFails(t *testing.T) {
	f := newFixture(t, template("ppt-a", byPool))
	f.pools.SetCapacityUnavailable(true)
	f.create("a", ClassQueuedProvisioning, "ppt-a", 1, nil)
	f.sync()
	f.wantCondition("a", CondAccepted, metav1.ConditionTrue, ReasonAccepted)
	f.now = f.now.Add(10 * time.Second)
	f.sync()
	f.wantCondition("a", CondFailed, metav1.ConditionTrue, ReasonCapacityUnavailable)
	f.wantCondition("a", CondProvisioned, metav1.ConditionFalse, ReasonNotProvisioned)
	if n := f.nodes(); len(n) != 0 {
		t.Fatalf("nodes of a failed request: %d, want 0", len(n))
	}
}

func TestOtherClassesAreLeftAlone(t *testing.T) {
	f := newFixture(t, template("ppt-a", byPool))
	f.create("a", "best-effort-atomic-scale-up.autoscaling.x-k8s.io", "ppt-a", 1, nil)
	f.sync()
	f.now = f.now.Add(time.Minute)
	f.sync()
	if s, _ := f.condition("a", CondAccepted); s != "" {
		t.Errorf("a request of another class got Accepted=%s", s)
	}
}

func TestNoQueuedPoolFails(t *testing.T) {
	f := newFixture(t, template("ppt-a", map[string]string{LabelNodePool: "ordinary"}))
	f.create("a", ClassQueuedProvisioning, "ppt-a", 1, nil)
	f.sync()
	f.wantCondition("a", CondFailed, metav1.ConditionTrue, ReasonNoQueuedPool)
	if s, _ := f.condition("a", CondAccepted); s != "" {
		t.Errorf("Accepted = %s, want unset", s)
	}
}

func TestPoolChosenByTPULabels(t *testing.T) {
	f := newFixture(t, template("ppt-a", map[string]string{LabelAccelerator: "tpu7x", LabelTopology: "2x2x2"}),
		template("ppt-b", map[string]string{LabelAccelerator: "tpu7x", LabelTopology: "4x4x4"}))
	f.pools.SetProvisionDelay(0)
	f.create("a", ClassQueuedProvisioning, "ppt-a", 1, nil)
	f.create("b", ClassQueuedProvisioning, "ppt-b", 1, nil)
	f.sync()
	f.sync()
	f.wantCondition("a", CondProvisioned, metav1.ConditionTrue, ReasonProvisioned)
	f.wantCondition("b", CondFailed, metav1.ConditionTrue, ReasonNoQueuedPool)
}

func TestMaxRunDurationExpiresTheBooking(t *testing.T) {
	f := newFixture(t, template("ppt-a", byPool))
	f.pools.SetProvisionDelay(0)
	f.create("a", ClassQueuedProvisioning, "ppt-a", 2, map[string]any{ParamMaxRunDuration: "60"})
	f.sync()
	f.sync()
	f.wantCondition("a", CondProvisioned, metav1.ConditionTrue, ReasonProvisioned)
	f.now = f.now.Add(59 * time.Second)
	f.sync()
	if len(f.nodes()) != 2 {
		t.Fatalf("nodes before the maximum run duration: %d, want 2", len(f.nodes()))
	}
	f.now = f.now.Add(time.Second)
	f.sync()
	f.wantCondition("a", CondBookingExpired, metav1.ConditionTrue, ReasonMaxRunDuration)
	if n := f.nodes(); len(n) != 0 {
		t.Fatalf("nodes after the maximum run duration: %d, want 0", len(n))
	}
}

func TestNodesGoWhenTheRunEnds(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p", Annotations: map[string]string{AnnotationConsume: "a"}},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	f := newFixture(t, template("ppt-a", byPool), pod)
	f.pools.SetProvisionDelay(0)
	f.create("a", ClassQueuedProvisioning, "ppt-a", 1, nil)
	f.sync()
	f.sync()
	f.sync()
	if len(f.nodes()) != 1 {
		t.Fatalf("nodes while the run goes on: %d, want 1", len(f.nodes()))
	}
	pod.Status.Phase = corev1.PodSucceeded
	if _, err := f.kube.CoreV1().Pods(ns).UpdateStatus(context.Background(), pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.sync()
	if n := f.nodes(); len(n) != 0 {
		t.Fatalf("nodes after the run: %d, want 0", len(n))
	}
}

func TestNodesOfDeletedRequestsAreRemoved(t *testing.T) {
	f := newFixture(t, template("ppt-a", byPool), template("ppt-b", byPool))
	f.pools.SetProvisionDelay(0)
	f.create("a", ClassQueuedProvisioning, "ppt-a", 1, nil)
	f.create("b", ClassQueuedProvisioning, "ppt-b", 2, nil)
	f.sync()
	f.sync()
	if len(f.nodes()) != 3 {
		t.Fatalf("nodes: %d, want 3", len(f.nodes()))
	}
	if err := f.dyn.Resource(GVR).Namespace(ns).Delete(context.Background(), "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.sync()
	var left []string
	for _, n := range f.nodes() {
		left = append(left, n.Annotations[AnnotationRequest])
	}
	if !slices.Equal(left, []string{ns + "/b", ns + "/b"}) {
		t.Fatalf("nodes left for requests %v, want b's two", left)
	}
}

func TestBadMaxRunDurationIsATypedError(t *testing.T) {
	f := newFixture(t, template("ppt-a", byPool))
	f.pools.SetProvisionDelay(0)
	f.create("a", ClassQueuedProvisioning, "ppt-a", 1, map[string]any{ParamMaxRunDuration: "soon"})
	f.sync()
	f.sync()
	err := f.c.Sync(context.Background())
	var bad *BadRequestError
	if !errors.As(err, &bad) || bad.Field != "spec.parameters."+ParamMaxRunDuration {
		t.Fatalf("Sync = %v, want a BadRequestError on %s", err, ParamMaxRunDuration)
	}
}
