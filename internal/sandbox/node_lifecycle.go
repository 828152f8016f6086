package sandbox

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
)

// The sandbox has no kubelets and no node lifecycle controller. What they
// would put on a GKE TPU node, it puts on its Nodes here: the software the
// node reports (status.nodeInfo, which kubectl shows as VERSION), its
// addresses, the google.com/tpu taint a TPU node registers with, and the
// not-ready taints that follow the Ready condition.

// TaintTPU is the taint GKE puts on every TPU node, google.com/tpu=present
// with effect NoSchedule, so that only pods that request TPUs land there.
// Pods that request the google.com/tpu resource get the matching toleration
// from GKE's ExtendedResourceToleration admission plugin.
const TaintTPU = "google.com/tpu"

// nodeKernelVersion, nodeContainerRuntime and nodeOSImage are what a
// Container-Optimized OS node of GKE 1.35 reports; the sandbox's own
// choice of plausible values.
const (
	nodeOSImage          = "Container-Optimized OS from Google"
	nodeKernelVersion    = "6.6.93+"
	nodeContainerRuntime = "containerd://2.0.6"
)

// kubeletVersion is the version a node's kubelet reports: its node pool's,
// which is the cluster's in the sandbox (GKE writes v-prefixed versions
// there, as Kubernetes does).
func kubeletVersion(clusterVersion string) string { return "v" + clusterVersion }

// setNodeSystemStatus fills in what a kubelet reports about its node: the
// node's software and its addresses. The values depend only on the node's
// name, so that rewriting them changes nothing.
func setNodeSystemStatus(n *corev1.Node, clusterVersion string) {
	id := opaqueID("machine", n.Name)
	n.Status.NodeInfo = corev1.NodeSystemInfo{
		MachineID:               id[:32],
		SystemUUID:              uuidFromHex(id),
		BootID:                  uuidFromHex(opaqueID("boot", n.Name)),
		KernelVersion:           nodeKernelVersion,
		OSImage:                 nodeOSImage,
		ContainerRuntimeVersion: nodeContainerRuntime,
		KubeletVersion:          kubeletVersion(clusterVersion),
		OperatingSystem:         "linux",
		Architecture:            "amd64",
	}
	n.Status.Addresses = []corev1.NodeAddress{
		{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.128.%d.%d", hexByte(id[32:34]), hexByte(id[34:36]))},
		{Type: corev1.NodeHostName, Address: n.Name},
	}
}

// uuidFromHex writes the first 32 hex digits of h as a UUID.
func uuidFromHex(h string) string {
	return fmt.Sprintf("%s-%s-%s-%s-%s", h[:8], h[8:12], h[12:16], h[16:20], h[20:32])
}

// hexByte is the value of two hex digits.
func hexByte(h string) uint8 {
	v, _ := strconv.ParseUint(h, 16, 8)
	return uint8(v)
}

// nodeTaints returns taints with the ones the sandbox manages set as GKE
// and the node lifecycle controller would for a node that is (or is not)
// Ready: google.com/tpu=present:NoSchedule always; node.kubernetes.io/not-ready
// with effects NoSchedule and NoExecute only while the node is not Ready.
// The API server's TaintNodesByCondition admission adds the NoSchedule one
// to every new node, so it is removed once the node is Ready. Taints that
// others added (kubectl taint) are kept, in order.
func nodeTaints(taints []corev1.Taint, ready bool) []corev1.Taint {
	out := slices.DeleteFunc(slices.Clone(taints), func(t corev1.Taint) bool {
		return t.Key == corev1.TaintNodeNotReady && ready
	})
	has := func(key string, effect corev1.TaintEffect) bool {
		return slices.ContainsFunc(out, func(t corev1.Taint) bool { return t.Key == key && t.Effect == effect })
	}
	if !has(TaintTPU, corev1.TaintEffectNoSchedule) {
		out = append(out, corev1.Taint{Key: TaintTPU, Value: "present", Effect: corev1.TaintEffectNoSchedule})
	}
	if !ready {
		if !has(corev1.TaintNodeNotReady, corev1.TaintEffectNoSchedule) {
			out = append(out, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
		}
		if !has(corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute) {
			now := metav1.Now()
			out = append(out, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: &now})
		}
	}
	return out
}

// syncNodeTaints brings the named node's taints to what nodeTaints says
// for its readiness. It is called after the node's Ready condition is
// written, as the node lifecycle controller reacts to it.
func (w *world) syncNodeTaints(ctx context.Context, name string, ready bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		node, err := w.kube.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		want := nodeTaints(node.Spec.Taints, ready)
		if slices.EqualFunc(want, node.Spec.Taints, func(a, b corev1.Taint) bool { return a.MatchTaint(&b) && a.Value == b.Value }) {
			return nil
		}
		node.Spec.Taints = want
		_, err = w.kube.CoreV1().Nodes().Update(ctx, node, metav1.UpdateOptions{})
		return err
	})
}
