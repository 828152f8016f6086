package sandbox

import (
	"context"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

var (
	tpuTaint          = corev1.Taint{Key: TaintTPU, Value: "present", Effect: corev1.TaintEffectNoSchedule}
	notReadyNoSched   = corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	notReadyNoExecute = corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: time.Unix(1e9, 0)}}
)

// taintNames writes taints as kubectl does (key=value:Effect), sorted.
func taintNames(taints []corev1.Taint) string {
	names := make([]string, len(taints))
	for i, t := range taints {
		names[i] = t.ToString()
	}
	sort.Strings(names)
	return strings.Join(names, " ")
}

// waitPoolNodes waits, with a watch, until the pool has want nodes and
// every one satisfies ok; describe says what a node has instead. It fails
// the test after 20s.
func waitPoolNodes(t *testing.T, pool string, want int, ok func(*corev1.Node) bool, describe func(*corev1.Node) string) []*corev1.Node {
	t.Helper()
	nodes := testKube(t).CoreV1().Nodes()
	lw := listWatch(func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return nodes.List(ctx, o) }, nodes.Watch,
		func(o *metav1.ListOptions) { o.LabelSelector = wellknown.LabelNodePool + "=" + pool })
	objs := awaitObjects(t, lw, &corev1.Node{}, 20*time.Second,
		func(objs []any) bool {
			all := len(objs) == want
			for _, o := range objs {
				all = all && ok(o.(*corev1.Node))
			}
			return all
		},
		func(objs []any) string {
			var bad []string
			for _, o := range objs {
				if n := o.(*corev1.Node); !ok(n) {
					bad = append(bad, n.Name+": "+describe(n))
				}
			}
			return fmt.Sprintf("pool %s has %d nodes (want %d); not as wanted: %s", pool, len(objs), want, strings.Join(bad, "; "))
		})
	out := make([]*corev1.Node, len(objs))
	for i, o := range objs {
		out[i] = o.(*corev1.Node)
	}
	return out
}

func describeNode(n *corev1.Node) string {
	return fmt.Sprintf("Ready %v, taints [%s], kubelet %q", cloud.NodeReady(n), taintNames(n.Spec.Taints), n.Status.NodeInfo.KubeletVersion)
}

// A pool's nodes report what a GKE TPU node's kubelet reports (kubectl
// shows the VERSION), carry google.com/tpu=present:NoSchedule, and carry
// the not-ready taints exactly while they are not Ready: the API server
// puts one on every new node, and kube-controller-manager's node lifecycle
// controller takes it off once kwok reports the node Ready, and puts both
// back when the node of an UNHEALTHY host reports NotReady.
func TestNodesCarryNodeInfoAndTaints(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	if err := createPool(t, svc, poolSpec("np-a4-taints", reservationPath("tpu7x-reservation", "block-a", "sub-block-a4"), 16)); err != nil {
		t.Fatal(err)
	}
	readyWithTPUTaint := func(n *corev1.Node) bool {
		return cloud.NodeReady(n) && taintNames(n.Spec.Taints) == tpuTaint.ToString()
	}
	nodes := waitPoolNodes(t, "np-a4-taints", 16, readyWithTPUTaint, describeNode)
	for _, n := range nodes {
		info := n.Status.NodeInfo
		if info.KubeletVersion != cloud.KubeletVersion(testSandbox.ClusterVersion()) || info.OSImage != cloud.NodeOSImage || info.ContainerRuntimeVersion == "" ||
			info.KernelVersion == "" || info.OperatingSystem != "linux" || info.Architecture != "amd64" || info.SystemUUID == "" {
			t.Errorf("node %s reports %+v", n.Name, info)
		}
		if len(n.Status.Addresses) != 2 || n.Status.Addresses[0].Type != corev1.NodeInternalIP {
			t.Errorf("node %s addresses %v; want an InternalIP and a Hostname", n.Name, n.Status.Addresses)
		}
	}

	// What kubectl prints, as GKE's dynamic slicing guide shows it: the
	// VERSION column.
	out, err := exec.Command("kubectl", "--kubeconfig", testSandbox.Kubeconfig, "get", "nodes",
		"-l", wellknown.LabelNodePool+"=np-a4-taints", "--no-headers").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl get nodes: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, line := range lines {
		if f := strings.Fields(line); len(f) != 5 || f[1] != "Ready" || f[4] != cloud.KubeletVersion(testSandbox.ClusterVersion()) {
			t.Errorf("kubectl get nodes printed %q; want NAME Ready <none> AGE %s", line, cloud.KubeletVersion(testSandbox.ClusterVersion()))
		}
	}

	// A host failing makes its node NotReady (kwok's node-not-ready stage),
	// tainted by the node lifecycle controller; repaired, the taints go.
	ctx := testContext(t)
	setHealth := func(health string) {
		if err := testSandbox.SetHostHealth(ctx, "tpu7x-reservation", "block-a", "sub-block-a4", 0, health); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_ = testSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-a", "sub-block-a4", 0, HostHealthy)
	})
	setHealth(HostUnhealthy)
	failing := nodes[0].Name
	for _, n := range nodes {
		if n.Annotations[cloud.AnnotationHostIndex] == "0" {
			failing = n.Name
		}
	}
	notReadyTaints := taintNames([]corev1.Taint{tpuTaint, notReadyNoSched, notReadyNoExecute})
	waitPoolNodes(t, "np-a4-taints", 16, func(n *corev1.Node) bool {
		if n.Name == failing {
			return !cloud.NodeReady(n) && taintNames(n.Spec.Taints) == notReadyTaints
		}
		return readyWithTPUTaint(n)
	}, describeNode)
	setHealth(HostHealthy)
	waitPoolNodes(t, "np-a4-taints", 16, readyWithTPUTaint, describeNode)
}
