package kueue

import (
	"context"
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// clusterQueue is a ClusterQueue named name whose Active condition is
// status with reason and message (no condition when status is "").
func clusterQueue(name, status, reason, message string) *unstructured.Unstructured {
	cq := &unstructured.Unstructured{}
	cq.SetAPIVersion(kernel.KueueGroup + "/" + kernel.KueueVersion)
	cq.SetKind("ClusterQueue")
	cq.SetName(name)
	if status != "" {
		_ = unstructured.SetNestedSlice(cq.Object, []any{map[string]any{"type": "Active", "status": status, "reason": reason, "message": message}}, "status", "conditions")
	}
	return cq
}

// queueKueue is a Kueue over a cluster that serves the ClusterQueues
// objs, and the fake that serves them.
func queueKueue(objs ...runtime.Object) (*Kueue, *dynamicfake.FakeDynamicClient) {
	gvr := kernel.KueueGVR("clusterqueues")
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{gvr: "ClusterQueueList"}, objs...)
	return newKueueOver(enginetest.NewGKE(), func(context.Context) (kernel.Cluster, error) {
		return kernel.NewCluster(fake.NewClientset(), dyn), nil
	}), dyn
}

func TestAwaitActive(t *testing.T) {
	t.Parallel()
	k := KueueSlicing{Name: "tpu7x", Overflow: &KueueOverflow{Topology: "4x4x4"}}

	e, _ := queueKueue(clusterQueue("tpu7x", "True", "Ready", "Can admit new workloads"))
	if err := e.AwaitActive(t.Context(), k); err != nil {
		t.Errorf("AwaitActive of an Active queue = %v", err)
	}

	// Inactive until the wait's end: Kueue's words, and what to check for
	// each inactive admission check it names.
	e, _ = queueKueue(clusterQueue("tpu7x", "False", "AdmissionCheckInactive", "Can't admit new workloads: references inactive AdmissionCheck(s): tpu7x,tpu7x-flex, there is no Topology \"t\" for TAS flavor \"tpu7x\"."))
	ctx, expire := testsupport.Expirable(t.Context())
	expire()
	err := e.AwaitActive(ctx, k)
	var inactive *InactiveQueueError
	if !errors.As(err, &inactive) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("AwaitActive of an inactive queue = %v, want an InactiveQueueError that wraps the deadline", err)
	}
	testsupport.WantContains(t, err, "ClusterQueue tpu7x is not Active", "AdmissionCheckInactive", "references inactive AdmissionCheck(s): tpu7x,tpu7x-flex",
		"slice controller", SliceControllerNamespace, "ProvisioningRequest controller")

	// No condition at all: Kueue's controller is not running.
	e, _ = queueKueue(clusterQueue("tpu7x", "", "", ""))
	ctx, expire = testsupport.Expirable(t.Context())
	expire()
	testsupport.WantContains(t, e.AwaitActive(ctx, KueueSlicing{Name: "tpu7x"}), "has not reported its Active condition", "kueue-system")
}

// A queue that becomes Active while the wait reads it ends the wait, at
// the read after the change.
func TestAwaitActiveFollowsTheQueue(t *testing.T) {
	t.Parallel()
	e, dyn := queueKueue(clusterQueue("q", "False", "AdmissionCheckInactive", "references inactive AdmissionCheck(s): q"))
	reads := 0
	dyn.PrependReactor("get", "clusterqueues", func(k8stesting.Action) (bool, runtime.Object, error) {
		reads++
		if reads == 3 {
			if err := dyn.Tracker().Update(kernel.KueueGVR("clusterqueues"), clusterQueue("q", "True", "Ready", ""), ""); err != nil {
				t.Error(err)
			}
		}
		return false, nil, nil
	})
	if err := e.AwaitActive(t.Context(), KueueSlicing{Name: "q"}); err != nil {
		t.Fatalf("AwaitActive = %v", err)
	}
	if reads != 3 {
		t.Errorf("%d reads of the ClusterQueue, want 3 (it became Active at the third)", reads)
	}
}

// A refresh reports a ClusterQueue that is not Active as drift, in the
// words of the apply's error; an Active one, or one that is missing (its
// own drift), adds nothing.
func TestQueueDrift(t *testing.T) {
	t.Parallel()
	k := KueueSlicing{Name: "tpu7x"}
	e, _ := queueKueue(clusterQueue("tpu7x", "False", "AdmissionCheckInactive", "Can't admit new workloads: references inactive AdmissionCheck(s): tpu7x."))
	got, err := e.queueDrift(t.Context(), k)
	if err != nil {
		t.Fatal(err)
	}
	testsupport.WantContains(t, errors.New(got), "ClusterQueue tpu7x is not Active (Kueue reports AdmissionCheckInactive", "the slice controller", SliceControllerNamespace)
	for name, e := range map[string]*Kueue{"active": first(queueKueue(clusterQueue("tpu7x", "True", "Ready", ""))), "missing": first(queueKueue())} {
		if got, err := e.queueDrift(t.Context(), k); got != "" || err != nil {
			t.Errorf("drift of a queue %s = %q, %v; want none", name, got, err)
		}
	}
}

// first is the first of two results.
func first[A, B any](a A, _ B) A { return a }
