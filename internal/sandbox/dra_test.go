package sandbox

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// A pool labelled for GKE's TPU DRA driver offers its chips as devices: its
// nodes have no google.com/tpu, a ResourceSlice each (gone with the node),
// and a pod whose ResourceClaimTemplate asks for all the TPU devices of a
// node gets a claim (kube-controller-manager) allocated on one of them by
// the scheduler, never on a node of a pool without the driver.
func TestDRAClaimAllocatedOnDriverNodes(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	dra := poolSpec("np-b1-dra", reservationPath("tpu7x-reservation", "block-b", "sub-block-b1"), 2)
	dra.Config.Labels = map[string]string{LabelTPUDRADriver: "true"}
	if err := createPool(t, svc, dra); err != nil {
		t.Fatal(err)
	}
	if err := createPool(t, svc, poolSpec("np-b4-nodra", reservationPath("tpu7x-reservation", "block-b", "sub-block-b4"), 2)); err != nil {
		t.Fatal(err)
	}
	kube := testKube(t)
	ctx := testContext(t)

	draNodes := map[string]bool{}
	for _, n := range poolNodes(t, "np-b1-dra") {
		draNodes[n.Name] = true
		if q, ok := n.Status.Capacity[ResourceTPU]; ok {
			t.Errorf("DRA node %s has %s capacity %s; want none", n.Name, ResourceTPU, q.String())
		}
		slice, err := kube.ResourceV1().ResourceSlices().Get(ctx, n.Name+"-"+DriverTPU, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("the ResourceSlice of node %s: %v", n.Name, err)
		}
		if len(slice.Spec.Devices) != chipsPerHost || *slice.Spec.NodeName != n.Name || slice.OwnerReferences[0].UID != n.UID {
			t.Errorf("the ResourceSlice of node %s: %+v", n.Name, slice)
		}
	}
	for _, n := range poolNodes(t, "np-b4-nodra") {
		if q := n.Status.Capacity[ResourceTPU]; q.Value() != chipsPerHost {
			t.Errorf("node %s without the DRA driver has %s capacity %s; want 4", n.Name, ResourceTPU, q.String())
		}
		if _, err := kube.ResourceV1().ResourceSlices().Get(ctx, n.Name+"-"+DriverTPU, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("node %s without the DRA driver has a ResourceSlice (err %v)", n.Name, err)
		}
	}

	templates := kube.ResourceV1().ResourceClaimTemplates(metav1.NamespaceDefault)
	if _, err := templates.Create(ctx, &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "all-tpus"},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
			Requests: []resourcev1.DeviceRequest{{Name: "tpu", Exactly: &resourcev1.ExactDeviceRequest{
				DeviceClassName: DriverTPU, AllocationMode: resourcev1.DeviceAllocationModeAll,
			}}},
		}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = templates.Delete(context.Background(), "all-tpus", metav1.DeleteOptions{}) })

	// A DRA TPU pod: the claim instead of google.com/tpu, hence the TPU
	// taint's toleration written out, and any tpu7x node.
	claimPod := func(selector map[string]string) corev1.PodSpec {
		spec := tpuPod("")
		spec.NodeSelector = selector
		spec.Containers[0].Resources = corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "tpu"}}}
		spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "tpu", ResourceClaimTemplateName: ptr.To("all-tpus")}}
		spec.Tolerations = []corev1.Toleration{{Key: TaintTPU, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
		return spec
	}
	// The pod runs 8s (kwok's pod-complete stage, told by the pod's
	// annotations) so that its claim, which kube-controller-manager deletes
	// with the pod once it is done, can be looked at while it runs.
	spec := claimPod(map[string]string{wellknown.LabelAccelerator: "tpu7x"})
	job := createJobAnnotated(t, "dra-job", spec, map[string]string{
		"pod-complete.stage.kwok.x-k8s.io/delay": "8s", "pod-complete.stage.kwok.x-k8s.io/jitter-delay": "8s",
	})
	var claim *resourcev1.ResourceClaim
	poll(t, 60*time.Second, func() (bool, string) {
		pods := jobPods(t, job.Name)
		if len(pods) != 1 || pods[0].Status.Phase != corev1.PodRunning {
			return false, "want one Running pod; " + describePods(pods)
		}
		s := pods[0].Status.ResourceClaimStatuses
		if len(s) != 1 || s[0].ResourceClaimName == nil {
			return false, fmt.Sprintf("pod %s resourceClaimStatuses %+v; want its claim", pods[0].Name, s)
		}
		var err error
		claim, err = kube.ResourceV1().ResourceClaims(metav1.NamespaceDefault).Get(ctx, *s[0].ResourceClaimName, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return claim.Status.Allocation != nil, fmt.Sprintf("claim %s not allocated: %+v", claim.Name, claim.Status)
	})
	pods := jobPods(t, job.Name)
	if !draNodes[pods[0].Spec.NodeName] {
		t.Fatalf("want the pod on a node of np-b1-dra; %s", describePods(pods))
	}
	// All four devices of the pod's node.
	if r := claim.Status.Allocation.Devices.Results; len(r) != chipsPerHost {
		t.Errorf("claim %s allocated %+v; want the %d devices of node %s", claim.Name, r, chipsPerHost, pods[0].Spec.NodeName)
	}
	for _, r := range claim.Status.Allocation.Devices.Results {
		if r.Driver != DriverTPU || r.Pool != pods[0].Spec.NodeName {
			t.Errorf("claim %s result %+v; want a device of node %s", claim.Name, r, pods[0].Spec.NodeName)
		}
	}
	waitJobComplete(t, job.Name)

	// Pinned to the pool without the driver, the same pod has no devices.
	createPod(t, "dra-on-nodra", claimPod(map[string]string{wellknown.LabelNodePool: "np-b4-nodra"}))
	waitUnschedulable(t, "dra-on-nodra", "cannot allocate all claims")

	// The slices go with their nodes (the garbage collector, by owner).
	deletePool(t, svc, "np-b1-dra")
	poll(t, 60*time.Second, func() (bool, string) {
		list, err := kube.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{FieldSelector: "spec.driver=" + DriverTPU})
		if err != nil {
			return false, err.Error()
		}
		var left []string
		for _, s := range list.Items {
			if draNodes[*s.Spec.NodeName] {
				left = append(left, s.Name)
			}
		}
		return len(left) == 0, fmt.Sprintf("ResourceSlices of deleted nodes left: %v", left)
	})
}
