package sandbox

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

// kwokStageSources are where kwokstages/ comes from in kwok's module.
var kwokStageSources = map[string]string{
	"node-initialize.yaml":           "kustomize/stage/node/fast/node-initialize.yaml",
	"node-heartbeat-with-lease.yaml": "kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
	"node-not-ready.yaml":            "kustomize/stage/node/chaos/node-not-ready.yaml",
	"pod-ready.yaml":                 "kustomize/stage/pod/fast/pod-ready.yaml",
	"pod-complete.yaml":              "kustomize/stage/pod/general/pod-complete.yaml",
	"pod-delete.yaml":                "kustomize/stage/pod/fast/pod-delete.yaml",
}

// The Stages kwok runs with are kwok's own, unchanged (but for the two
// comment lines that say so), from the release tools/sandbox pins. Skipped
// when that module is not in the Go module cache (`make sandbox-bin` puts
// it there).
func TestKwokStagesAreKwoks(t *testing.T) {
	t.Parallel()
	if len(kwokStageSources) != len(kwokStageFiles) {
		t.Fatalf("kwokStageSources has %d files, kwokStageFiles %d", len(kwokStageSources), len(kwokStageFiles))
	}
	root, ok := repoRoot()
	if !ok {
		t.Skip("not in the repository")
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kwok")
	cmd.Dir = filepath.Join(root, "tools", "sandbox")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off")
	out, err := cmd.Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("kwok's module is not in the module cache (run `make sandbox-bin`): %v", err)
	}
	for _, name := range kwokStageFiles {
		want, err := os.ReadFile(filepath.Join(dir, kwokStageSources[name]))
		if err != nil {
			t.Fatal(err)
		}
		got, err := kwokStages.ReadFile("kwokstages/" + name)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfterN(got, []byte("\n"), 3)
		if len(lines) != 3 || !bytes.HasPrefix(lines[0], []byte("# ")) || !bytes.Contains(lines[1], []byte(kwokStageSources[name])) {
			t.Errorf("kwokstages/%s does not start with the two comment lines naming its source %s", name, kwokStageSources[name])
			continue
		}
		if !bytes.Equal(lines[2], want) {
			t.Errorf("kwokstages/%s differs from %s of the pinned kwok: copy it again", name, kwokStageSources[name])
		}
	}
}

// kwok is the kubelet of a pool's nodes: it holds their Leases in
// kube-node-lease, and reports the node of an UNHEALTHY
// host NotReady with the sandbox's reason, and Ready again once repaired.
func TestKwokHeartbeatsAndHostHealth(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	if err := createPool(t, svc, poolSpec("np-b4-kwok", reservationPath("tpu7x-reservation", "block-b", "sub-block-b4"), 2)); err != nil {
		t.Fatal(err)
	}
	kube := testKube(t)
	nodes := poolNodes(t, "np-b4-kwok")
	// The Leases kwok holds: renewed every 45s (kwokLeaseSeconds), which
	// this test does not wait for; kube-controller-manager would mark a
	// node whose Lease lapses Unknown, which the other tests would see.
	poll(t, 30*time.Second, func() (bool, string) {
		var state []string
		for _, n := range nodes {
			lease, err := kube.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(testContext(t), n.Name, metav1.GetOptions{})
			switch {
			case err != nil:
				state = append(state, n.Name+": "+err.Error())
			case lease.Spec.RenewTime == nil || ptr.Deref(lease.Spec.HolderIdentity, "") == "" ||
				lease.Spec.LeaseDurationSeconds == nil || *lease.Spec.LeaseDurationSeconds != kwokLeaseSeconds:
				state = append(state, fmt.Sprintf("%s: lease held by %q for %ds, renewed %v", n.Name,
					ptr.Deref(lease.Spec.HolderIdentity, ""), ptr.Deref(lease.Spec.LeaseDurationSeconds, 0), lease.Spec.RenewTime))
			}
		}
		return len(state) == 0, "leases not as kwok holds them: " + strings.Join(state, ", ")
	})

	ctx := testContext(t)
	var host0 string
	for _, n := range nodes {
		if n.Annotations[cloud.AnnotationHostIndex] == "0" {
			host0 = n.Name
		}
	}
	t.Cleanup(func() {
		_ = testSandbox.SetHostHealth(ctx, "tpu7x-reservation", "block-b", "sub-block-b4", 0, HostHealthy)
	})
	if err := testSandbox.SetHostHealth(ctx, "tpu7x-reservation", "block-b", "sub-block-b4", 0, HostUnhealthy); err != nil {
		t.Fatal(err)
	}
	// SetHostHealth returns once the node reports it.
	n, err := kube.CoreV1().Nodes().Get(ctx, host0, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && (c.Status != corev1.ConditionFalse || c.Reason != "HostUnhealthy") {
			t.Errorf("node %s of an UNHEALTHY host: Ready %s (%s: %s); want False, HostUnhealthy", host0, c.Status, c.Reason, c.Message)
		}
	}
	if err := testSandbox.SetHostHealth(ctx, "tpu7x-reservation", "block-b", "sub-block-b4", 0, HostHealthy); err != nil {
		t.Fatal(err)
	}
	if n, err = kube.CoreV1().Nodes().Get(ctx, host0, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, labelled := n.Labels[labelKwokNotReady]; !cloud.NodeReady(n) || labelled {
		t.Errorf("node %s of a repaired host: Ready %v, labels %v; want Ready, without %s", host0, cloud.NodeReady(n), n.Labels, labelKwokNotReady)
	}
}

func TestNodeLeaseSeconds(t *testing.T) {
	t.Parallel()
	if got := (&Sandbox{}).leaseSeconds(); got != kwokLeaseSeconds {
		t.Errorf("default Lease: %ds, want %d", got, kwokLeaseSeconds)
	}
	if got := (&Sandbox{nodeLeaseSeconds: 4 * kwokLeaseSeconds}).leaseSeconds(); got != 720 {
		t.Errorf("Lease of four pods: %ds, want 720", got)
	}
	for lease, want := range map[int]time.Duration{kwokLeaseSeconds: 2 * time.Minute, 720: 8 * time.Minute} {
		if got := nodeMonitorGrace(lease); got != want {
			t.Errorf("grace period for a %ds Lease: %s, want %s", lease, got, want)
		}
	}
}

// At scale (Leases n times the default) the node status rewrite and the
// node lifecycle controller's look at the nodes are n times less frequent;
// at the default they are kwok's and 2s.
func TestHeartbeatScale(t *testing.T) {
	t.Parallel()
	for lease, want := range map[int]int{0: 1, kwokLeaseSeconds: 1, 2 * kwokLeaseSeconds: 2, 4 * kwokLeaseSeconds: 4} {
		if got := (&Sandbox{nodeLeaseSeconds: lease}).heartbeatScale(); got != want {
			t.Errorf("Lease %ds: heartbeat scale %d, want %d", lease, got, want)
		}
	}
	for scale, want := range map[int]time.Duration{1: 2 * time.Second, 4: 8 * time.Second} {
		if got := nodeMonitorPeriod(scale); got != want {
			t.Errorf("node monitor period at scale %d: %s, want %s", scale, got, want)
		}
	}
	plain, err := kwokConfig(1)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(plain, []byte(heartbeatDelay)) {
		t.Errorf("at scale 1 the heartbeat stage's delay is not kwok's own:\n%s", plain)
	}
	four, err := kwokConfig(4)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(four, []byte(heartbeatDelay)) || !bytes.Contains(four, []byte("durationMilliseconds: 2400000\n    jitterDurationMilliseconds: 2440000\n")) {
		t.Errorf("at scale 4 the heartbeat stage's delay is not four times kwok's:\n%s", four)
	}
	if len(four) != len(plain)+2 {
		t.Errorf("at scale 4 more changed than the heartbeat's delay: %d bytes, want %d", len(four), len(plain)+2)
	}
}
