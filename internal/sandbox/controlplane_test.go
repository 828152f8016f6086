package sandbox

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// poll calls check every 100ms until it says done, and fails the test
// after timeout with what check last described (testsupport.Poll, for a
// state that says what it is of).
func poll(t *testing.T, timeout time.Duration, check func() (done bool, state string)) {
	t.Helper()
	testsupport.Poll(t, timeout, 100*time.Millisecond, "the sandbox's state", func() (bool, string, error) {
		done, state := check()
		return done, state, nil
	})
}

// tpuPod is a pod spec that asks for a whole TPU host (google.com/tpu: 4)
// of the node pool, as a GKE TPU workload does.
func tpuPod(pool string) corev1.PodSpec {
	return corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		NodeSelector:  map[string]string{wellknown.LabelNodePool: pool},
		Containers: []corev1.Container{{
			Name: "main", Image: "us-docker.pkg.dev/cloud-tpu-images/jax:latest",
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{ResourceTPU: resource.MustParse("4")},
				Limits:   corev1.ResourceList{ResourceTPU: resource.MustParse("4")},
			},
		}},
	}
}

// createJob creates a Job of n pods in default, deleted (with its pods)
// when the test ends.
func createJob(t *testing.T, name string, n int32, spec corev1.PodSpec) *batchv1.Job {
	t.Helper()
	return createJobOf(t, name, n, spec, nil)
}

// createJobAnnotated creates a Job of one pod whose template has the
// annotations (kwok's stages read some).
func createJobAnnotated(t *testing.T, name string, spec corev1.PodSpec, annotations map[string]string) *batchv1.Job {
	t.Helper()
	return createJobOf(t, name, 1, spec, annotations)
}

func createJobOf(t *testing.T, name string, n int32, spec corev1.PodSpec, annotations map[string]string) *batchv1.Job {
	t.Helper()
	jobs := testKube(t).BatchV1().Jobs(metav1.NamespaceDefault)
	job, err := jobs.Create(testContext(t), &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: batchv1.JobSpec{
			Parallelism: ptr.To(n), Completions: ptr.To(n), BackoffLimit: ptr.To(int32(0)),
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Annotations: annotations}, Spec: spec},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating Job %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = jobs.Delete(context.Background(), name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})
	})
	return job
}

// jobPods are the pods of a Job.
func jobPods(t *testing.T, job string) []corev1.Pod {
	t.Helper()
	list, err := testKube(t).CoreV1().Pods(metav1.NamespaceDefault).List(testContext(t), metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + job})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func describePods(pods []corev1.Pod) string {
	var out []string
	for _, p := range pods {
		s := fmt.Sprintf("%s on %q %s", p.Name, p.Spec.NodeName, p.Status.Phase)
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status != corev1.ConditionTrue {
				s += fmt.Sprintf(" (PodScheduled %s %s: %s)", c.Status, c.Reason, c.Message)
			}
		}
		out = append(out, s)
	}
	return fmt.Sprintf("%d pods: %s", len(pods), strings.Join(out, "; "))
}

// waitJobComplete waits for the Job's Complete condition and records the
// phases its pods were seen in on the way.
func waitJobComplete(t *testing.T, name string) (seen map[corev1.PodPhase]bool) {
	t.Helper()
	seen = map[corev1.PodPhase]bool{}
	jobs := testKube(t).BatchV1().Jobs(metav1.NamespaceDefault)
	poll(t, 90*time.Second, func() (bool, string) {
		pods := jobPods(t, name)
		for _, p := range pods {
			seen[p.Status.Phase] = true
		}
		job, err := jobs.Get(testContext(t), name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return testsupport.JobComplete(job), fmt.Sprintf("Job %s: %+v; %s", name, job.Status, describePods(pods))
	})
	return seen
}

// podScheduled is a pod's PodScheduled condition, if it has one.
func podScheduled(p *corev1.Pod) (corev1.PodCondition, bool) {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c, true
		}
	}
	return corev1.PodCondition{}, false
}

// createPod creates a bare pod in default, deleted when the test ends.
func createPod(t *testing.T, name string, spec corev1.PodSpec) {
	t.Helper()
	pods := testKube(t).CoreV1().Pods(metav1.NamespaceDefault)
	if _, err := pods.Create(testContext(t), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating pod %s: %v", name, err)
	}
	t.Cleanup(func() { _ = pods.Delete(context.Background(), name, metav1.DeleteOptions{}) })
}

// waitUnschedulable waits until the scheduler has said that the pod cannot
// be scheduled (PodScheduled False, Unschedulable) with a message that
// contains want, and checks that the pod is still Pending and unbound.
func waitUnschedulable(t *testing.T, name, want string) {
	t.Helper()
	pods := testKube(t).CoreV1().Pods(metav1.NamespaceDefault)
	var msg string
	poll(t, 30*time.Second, func() (bool, string) {
		p, err := pods.Get(testContext(t), name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		c, ok := podScheduled(p)
		msg = c.Message
		if p.Spec.NodeName != "" {
			t.Fatalf("pod %s was bound to node %s; want it left Pending", name, p.Spec.NodeName)
		}
		return ok && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable && strings.Contains(msg, want),
			fmt.Sprintf("pod %s: phase %s, conditions %+v; want PodScheduled False, Unschedulable, with %q", name, p.Status.Phase, p.Status.Conditions, want)
	})
	if p, _ := pods.Get(testContext(t), name, metav1.GetOptions{}); p != nil && p.Status.Phase != corev1.PodPending {
		t.Errorf("pod %s is %s; want Pending", name, p.Status.Phase)
	}
}

// A Job's pods that ask for a TPU host of a pool are bound by the real
// kube-scheduler to that pool's nodes (tolerating the TPU taint thanks to
// the ExtendedResourceToleration admission plugin), run (kwok), succeed,
// and the real Job controller marks the Job Complete.
func TestJobRunsOnPoolNodes(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	if err := createPool(t, svc, poolSpec("np-b4-jobs", reservationPath("tpu7x-reservation", "block-b", "sub-block-b4"), 4)); err != nil {
		t.Fatal(err)
	}
	createJob(t, "tpu-job", 2, tpuPod("np-b4-jobs"))
	seen := waitJobComplete(t, "tpu-job")
	if !seen[corev1.PodRunning] {
		t.Errorf("the Job's pods were never seen Running (seen: %v)", seen)
	}
	pods := jobPods(t, "tpu-job")
	if len(pods) != 2 {
		t.Fatalf("want 2 pods; %s", describePods(pods))
	}
	nodes := map[string]bool{}
	for _, n := range poolNodes(t, "np-b4-jobs") {
		nodes[n.Name] = true
	}
	for _, p := range pods {
		c, _ := podScheduled(&p)
		if !nodes[p.Spec.NodeName] || p.Status.Phase != corev1.PodSucceeded || c.Status != corev1.ConditionTrue {
			t.Errorf("pod %s on %q, %s, PodScheduled %s; want on a node of np-b4-jobs, Succeeded, scheduled", p.Name, p.Spec.NodeName, p.Status.Phase, c.Status)
		}
		tolerated := false
		for _, tol := range p.Spec.Tolerations {
			tolerated = tolerated || (tol.Key == TaintTPU && tol.Operator == corev1.TolerationOpExists)
		}
		if !tolerated {
			t.Errorf("pod %s has no toleration of %s (ExtendedResourceToleration): %+v", p.Name, TaintTPU, p.Spec.Tolerations)
		}
	}
}

// A pod that no node can take stays Pending, and the scheduler says why:
// a node selector no node matches, or no toleration of the TPU taint.
func TestUnschedulablePodsStayPending(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	if err := createPool(t, svc, poolSpec("np-b4-pending", reservationPath("tpu7x-reservation", "block-b", "sub-block-b4"), 2)); err != nil {
		t.Fatal(err)
	}

	createPod(t, "no-such-pool", tpuPod("no-such-pool"))
	waitUnschedulable(t, "no-such-pool", "didn't match Pod's node affinity/selector")

	// No TPU request, hence no toleration: the pool's nodes are tainted.
	plain := tpuPod("np-b4-pending")
	plain.Containers[0].Resources = corev1.ResourceRequirements{}
	createPod(t, "no-tpu", plain)
	// (The scheduler's message does not name the taint; the nodes' only
	// one, once Ready, is the TPU taint: TestNodesCarryNodeInfoAndTaints.)
	waitUnschedulable(t, "no-tpu", "untolerated taint")
}

// The test sandbox runs every part; Options.NoWorkloads leaves the
// scheduler and the controller manager off (this test needs a second
// sandbox without them), kwok on, and Stop ends all of them.
func TestParts(t *testing.T) {
	needSandbox(t)
	if got, want := strings.Join(testSandbox.Parts(), " "), "etcd kube-apiserver kube-controller-manager kube-scheduler kwok jobset kueue"; got != want {
		t.Errorf("Parts() = %q; want %q", got, want)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sb, err := Start(ctx, Options{NoWorkloads: true})
	if err != nil {
		t.Fatal(err)
	}
	pids := sb.Processes()
	if got, want := strings.Join(sb.Parts(), " "), "etcd kube-apiserver kwok"; got != want {
		t.Errorf("with NoWorkloads, Parts() = %q; want %q", got, want)
	}
	sb.Stop()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("process %d still runs after Stop", pid)
		}
	}
}
