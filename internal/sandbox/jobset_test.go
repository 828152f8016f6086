package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// JobSet's label and annotation names, as its API package spells them.
const (
	jobSetNameLabel          = "jobset.sigs.k8s.io/jobset-name"
	jobSetReplicatedJobLabel = "jobset.sigs.k8s.io/replicatedjob-name"
	jobSetJobKeyLabel        = "jobset.sigs.k8s.io/job-key"
	exclusiveTopologyValue   = "cloud.google.com/gke-nodepool"
)

// pinnedJobSetVersion is the version tools/sandbox/go.mod requires: the
// one `make sandbox-bin` builds.
func pinnedJobSetVersion(t *testing.T) string {
	t.Helper()
	return pinnedInToolsSandbox(t, "sigs.k8s.io/jobset")
}

// Without the JobSet controller or its CRDs the sandbox does not start, and
// says how to get them; with NoWorkloads it needs neither.
func TestJobSetPartsMissing(t *testing.T) {
	t.Setenv("GKE_SANDBOX_JOBSET", filepath.Join(t.TempDir(), "no-jobset"))
	if _, err := findJobSet(Options{}); err == nil || !strings.Contains(err.Error(), "make sandbox-bin") || !strings.Contains(err.Error(), "GKE_SANDBOX_JOBSET") {
		t.Errorf("no JobSet binary: %v; want an error that says `make sandbox-bin`", err)
	}
	empty := t.TempDir()
	if _, err := JobSetCRDDir(Options{JobSetCRDs: empty}); err == nil || !strings.Contains(err.Error(), "no JobSet CRDs in "+empty) || !strings.Contains(err.Error(), "make sandbox-bin") {
		t.Errorf("no JobSet CRDs: %v; want an error that names the directory and `make sandbox-bin`", err)
	}
	if parts, err := findJobSet(Options{NoWorkloads: true}); parts != nil || err != nil {
		t.Errorf("NoWorkloads: %+v, %v; want JobSet left out", parts, err)
	}
}

// jobSetCRDDirForTest is the JobSet CRD directory, or skips the test.
func jobSetCRDDirForTest(t *testing.T) string {
	t.Helper()
	dir, err := JobSetCRDDir(Options{})
	if err != nil {
		t.Skip(err)
	}
	return dir
}

// The webhook configurations are JobSet's as its release installs them:
// its names, its four webhooks, and the objectSelector its kustomize
// patches give the pod webhooks (only pods of a JobSet are sent).
func TestJobSetWebhooksAsShipped(t *testing.T) {
	t.Parallel()
	configs, err := readJobSetWebhooks(jobSetCRDDirForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{} // webhook name → webhook
	var names []string
	for _, c := range configs {
		names = append(names, c.GetKind()+"/"+c.GetName())
		webhooks, _, _ := unstructured.NestedSlice(c.Object, "webhooks")
		for _, w := range webhooks {
			m, _ := w.(map[string]any)
			name, _ := m["name"].(string)
			got[name] = m
		}
	}
	slices.Sort(names)
	if want := []string{"MutatingWebhookConfiguration/jobset-mutating-webhook-configuration", "ValidatingWebhookConfiguration/jobset-validating-webhook-configuration"}; !slices.Equal(names, want) {
		t.Errorf("configurations %v, want %v", names, want)
	}
	for name, path := range map[string]string{
		"mjobset.kb.io": "/mutate-jobset-x-k8s-io-v1alpha2-jobset", "vjobset.kb.io": "/validate-jobset-x-k8s-io-v1alpha2-jobset",
		"mpod.kb.io": "/mutate--v1-pod", "vpod.kb.io": "/validate--v1-pod",
	} {
		w, ok := got[name]
		if !ok {
			t.Errorf("no webhook %s", name)
			continue
		}
		if p, _, _ := unstructured.NestedString(w, "clientConfig", "service", "path"); p != path {
			t.Errorf("webhook %s path %q, want %q", name, p, path)
		}
		if fp, _, _ := unstructured.NestedString(w, "failurePolicy"); fp != "Fail" {
			t.Errorf("webhook %s failurePolicy %q, want Fail", name, fp)
		}
		exprs, _, _ := unstructured.NestedSlice(w, "objectSelector", "matchExpressions")
		isPod := strings.HasSuffix(name, "pod.kb.io")
		want := isPod && len(exprs) == 1 && fmt.Sprint(exprs[0]) == fmt.Sprint(map[string]any{"key": jobSetNameLabel, "operator": "Exists"})
		if isPod != want || (!isPod && len(exprs) != 0) {
			t.Errorf("webhook %s objectSelector %v; want pods of a JobSet only (%s Exists) for the pod webhooks, none for the others", name, exprs, jobSetNameLabel)
		}
	}

	// A patch that does more than replace a webhook is refused, not half
	// applied.
	c := configs[0].DeepCopy()
	if err := applyWebhookPatch(c, []jsonPatchOp{{Op: "remove", Path: "/webhooks/0"}}); err == nil {
		t.Error("a remove operation was applied")
	}
	if err := applyWebhookPatch(c, []jsonPatchOp{{Op: "replace", Path: "/webhooks/0/name", Value: map[string]any{}}}); err == nil {
		t.Error("an operation inside a webhook was applied")
	}
}

// The controller runs, is one of the sandbox's processes, and the sandbox
// reports the pinned version.
func TestJobSetRunning(t *testing.T) {
	needSandbox(t)
	want := pinnedJobSetVersion(t)
	if testSandbox.JobSetVersion != want || testSandbox.Info().JobSetVersion != want {
		t.Errorf("JobSetVersion %q (Info %q), want %s as pinned in tools/sandbox/go.mod", testSandbox.JobSetVersion, testSandbox.Info().JobSetVersion, want)
	}
	if testSandbox.jobset == nil {
		t.Fatal("the JobSet controller is not running")
	}
	pid := testSandbox.jobset.cmd.Process.Pid
	if !slices.Contains(testSandbox.Processes(), pid) {
		t.Errorf("Processes() %v does not list the JobSet controller (%d)", testSandbox.Processes(), pid)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Errorf("the JobSet controller (%d): %v", pid, err)
	}
	// The binary is the pinned release (its version is stamped at build).
	log, err := os.ReadFile(filepath.Join(testSandbox.Dir, "jobset.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), `"gitVersion": "`+want+`"`) {
		t.Errorf("jobset.log does not show gitVersion %s:\n%.2000s", want, log)
	}
}

// testNamespace creates a namespace for one test, with the default
// ServiceAccount the ServiceAccount admission plugin requires of pods (no
// controller-manager creates it here), and deletes it afterwards.
func testNamespace(t *testing.T, kube kubernetes.Interface, prefix string) string {
	t.Helper()
	ctx := testContext(t)
	ns, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = kube.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
	})
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	if _, err := kube.CoreV1().ServiceAccounts(ns.Name).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	return ns.Name
}

// exclusiveJobSet is a JobSet of two replicated Jobs (two workers, one
// driver), each Job to have a node pool to itself.
func exclusiveJobSet(ns, name string) *unstructured.Unstructured {
	rjob := func(name string, replicas int64) map[string]any {
		return map[string]any{
			"name":     name,
			"replicas": replicas,
			"template": map[string]any{"spec": map[string]any{
				"parallelism": int64(2), "completions": int64(2),
				"template": map[string]any{"spec": map[string]any{
					"containers": []any{map[string]any{"name": "main", "image": "busybox", "command": []any{"true"}}},
				}},
			}},
		}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": JobSetGVR.GroupVersion().String(),
		"kind":       "JobSet",
		"metadata": map[string]any{
			"name": name, "namespace": ns,
			"annotations": map[string]any{JobSetExclusiveTopology: exclusiveTopologyValue},
		},
		"spec": map[string]any{"replicatedJobs": []any{rjob("workers", 2), rjob("driver", 1)}},
	}}
}

// A JobSet with the exclusive-topology annotation is defaulted by JobSet's
// mutating webhook, and its controller creates the child Jobs, annotated
// for exclusive placement; the pods of those Jobs get the affinities that
// place them (JobSet's pod mutating webhook), and a follower pod whose
// leader is not placed is refused (its pod validating webhook).
func TestJobSetExclusiveTopology(t *testing.T) {
	needSandbox(t)
	kube := testKube(t)
	ns := testNamespace(t, kube, "jobset-exclusive")
	ctx := testContext(t)
	jobsets := testDynamic(t).Resource(JobSetGVR).Namespace(ns)
	if _, err := jobsets.Create(ctx, exclusiveJobSet(ns, "train"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the JobSet: %v", err)
	}
	stored, err := jobsets.Get(ctx, "train", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// JobSet's defaulting webhook ran (the CRD's schema sets none of these).
	for _, d := range []struct {
		path []string
		want any
	}{
		{[]string{"spec", "network", "enableDNSHostnames"}, true},
		{[]string{"spec", "successPolicy", "operator"}, "All"},
		{[]string{"spec", "startupPolicy", "startupPolicyOrder"}, "AnyOrder"},
	} {
		if got, _, _ := unstructured.NestedFieldNoCopy(stored.Object, d.path...); got != d.want {
			t.Errorf("stored JobSet %s = %v, want %v (JobSet's defaulting webhook)", strings.Join(d.path, "."), got, d.want)
		}
	}
	rjobs, _, _ := unstructured.NestedSlice(stored.Object, "spec", "replicatedJobs")
	for _, r := range rjobs {
		m, _ := r.(map[string]any)
		if mode, _, _ := unstructured.NestedString(m, "template", "spec", "completionMode"); mode != "Indexed" {
			t.Errorf("replicated Job %v completionMode %q, want Indexed (JobSet's default)", m["name"], mode)
		}
		if rp, _, _ := unstructured.NestedString(m, "template", "spec", "template", "spec", "restartPolicy"); rp != "OnFailure" {
			t.Errorf("replicated Job %v restartPolicy %q, want OnFailure (JobSet's default)", m["name"], rp)
		}
	}

	// The controller creates train-workers-0, train-workers-1, train-driver-0.
	jobsAPI := kube.BatchV1().Jobs(ns)
	objs := awaitObjects(t, listWatch(
		func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return jobsAPI.List(ctx, o) },
		func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) { return jobsAPI.Watch(ctx, o) },
		func(o *metav1.ListOptions) { o.LabelSelector = jobSetNameLabel + "=train" },
	), &batchv1.Job{}, 20*time.Second,
		func(objs []any) bool { return len(objs) == 3 },
		func(objs []any) string {
			return fmt.Sprintf("%d of the JobSet's 3 Jobs were created (see jobset.log in %s)", len(objs), testSandbox.Dir)
		})
	var names []string
	var leader *batchv1.Job
	for _, o := range objs {
		job, _ := o.(*batchv1.Job)
		names = append(names, job.Name)
		if job.Name == "train-workers-0" {
			leader = job
		}
		if job.Annotations[JobSetExclusiveTopology] != exclusiveTopologyValue || job.Spec.Template.Annotations[JobSetExclusiveTopology] != exclusiveTopologyValue {
			t.Errorf("Job %s: exclusive-topology annotation %q, on its pods %q; want %q on both", job.Name,
				job.Annotations[JobSetExclusiveTopology], job.Spec.Template.Annotations[JobSetExclusiveTopology], exclusiveTopologyValue)
		}
		if job.Spec.Template.Labels[jobSetJobKeyLabel] == "" || job.Spec.Template.Spec.Subdomain != "train" {
			t.Errorf("Job %s: pod labels %v, subdomain %q; want JobSet's job-key label and the JobSet's subdomain", job.Name, job.Spec.Template.Labels, job.Spec.Template.Spec.Subdomain)
		}
		if len(job.OwnerReferences) != 1 || job.OwnerReferences[0].Kind != "JobSet" || job.OwnerReferences[0].Name != "train" {
			t.Errorf("Job %s is owned by %v, want the JobSet", job.Name, job.OwnerReferences)
		}
	}
	slices.Sort(names)
	if want := []string{"train-driver-0", "train-workers-0", "train-workers-1"}; !slices.Equal(names, want) {
		t.Fatalf("Jobs %v, want %v", names, want)
	}

	// The pods the Job controller would create for that Job: the leader
	// (completion index 0) is given the affinities that place its Job alone
	// on one node pool; a follower is refused until its leader is placed.
	podOf := func(index string) *corev1.Pod {
		tmpl := leader.Spec.Template.DeepCopy()
		tmpl.Annotations[batchv1.JobCompletionIndexAnnotation] = index
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "train-workers-0-" + index, Namespace: ns, Labels: tmpl.Labels, Annotations: tmpl.Annotations,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: leader.Name, UID: leader.UID, Controller: new(true)}}},
			Spec: tmpl.Spec,
		}
	}
	pod, err := kube.CoreV1().Pods(ns).Create(ctx, podOf("0"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatalf("creating the leader pod: %v", err)
	}
	key := leader.Spec.Template.Labels[jobSetJobKeyLabel]
	aff := pod.Spec.Affinity
	switch {
	case aff == nil || aff.PodAffinity == nil || aff.PodAntiAffinity == nil:
		t.Errorf("the leader pod has no pod affinity and anti-affinity: %+v", aff)
	case len(aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 || len(aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1:
		t.Errorf("the leader pod's affinities: %+v", aff)
	default:
		together, apart := aff.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0], aff.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
		if together.TopologyKey != exclusiveTopologyValue || apart.TopologyKey != exclusiveTopologyValue {
			t.Errorf("affinity topology keys %q and %q, want %q", together.TopologyKey, apart.TopologyKey, exclusiveTopologyValue)
		}
		if s := metav1.FormatLabelSelector(together.LabelSelector); s != jobSetJobKeyLabel+" in ("+key+")" {
			t.Errorf("pod affinity selects %s, want the pods of its own Job", s)
		}
		if s := metav1.FormatLabelSelector(apart.LabelSelector); !strings.Contains(s, jobSetJobKeyLabel+" notin ("+key+")") {
			t.Errorf("pod anti-affinity selects %s, want the pods of the other Jobs", s)
		}
	}
	_, err = kube.CoreV1().Pods(ns).Create(ctx, podOf("1"), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err == nil || !strings.Contains(err.Error(), "vpod.kb.io") {
		t.Errorf("a follower pod before its leader is placed: %v; want it refused by JobSet's pod webhook", err)
	}
	// A pod of no JobSet is not sent to JobSet (objectSelector).
	plain := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: ns}, Spec: leader.Spec.Template.Spec}
	if got, err := kube.CoreV1().Pods(ns).Create(ctx, plain, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil || got.Spec.Affinity != nil {
		t.Errorf("a pod of no JobSet: %v, affinity %+v; want it admitted untouched", err, got)
	}
}

// An invalid JobSet is refused by JobSet's validating webhook, with its
// message.
func TestJobSetInvalidRefused(t *testing.T) {
	needSandbox(t)
	ns := testNamespace(t, testKube(t), "jobset-invalid")
	js := exclusiveJobSet(ns, "bad")
	rjobs, _, _ := unstructured.NestedSlice(js.Object, "spec", "replicatedJobs")
	rjobs[0].(map[string]any)["dependsOn"] = []any{map[string]any{"name": "driver", "status": "Ready"}}
	if err := unstructured.SetNestedSlice(js.Object, rjobs, "spec", "replicatedJobs"); err != nil {
		t.Fatal(err)
	}
	_, err := testDynamic(t).Resource(JobSetGVR).Namespace(ns).Create(testContext(t), js, metav1.CreateOptions{})
	var status *apierrors.StatusError
	if !errors.As(err, &status) || !strings.Contains(err.Error(), `admission webhook "vjobset.kb.io" denied the request`) ||
		!strings.Contains(err.Error(), "DependsOn can't be set for the first ReplicatedJob") {
		t.Errorf("a JobSet whose first replicated Job depends on another: %v; want it refused by JobSet's validating webhook", err)
	}
}

// A JobSet controller that does not come up fails Start with an error that
// names it and its log (here a "controller" that exits at once).
func TestJobSetControllerFails(t *testing.T) {
	startFailsNaming(t, func(o *Options) { o.JobSet = "/bin/false" }, "JobSet", "jobset")
}
