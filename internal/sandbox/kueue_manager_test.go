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

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// Without Kueue's controller or its webhook manifests the sandbox does not
// start, and says how to get them; with NoWorkloads it needs neither.
func TestKueuePartsMissing(t *testing.T) {
	t.Setenv("GKE_SANDBOX_KUEUE", filepath.Join(t.TempDir(), "no-kueue"))
	if _, err := findKueue(Options{}); err == nil || !strings.Contains(err.Error(), "make sandbox-bin") || !strings.Contains(err.Error(), "GKE_SANDBOX_KUEUE") {
		t.Errorf("no Kueue binary: %v; want an error that says `make sandbox-bin`", err)
	}
	// CRDs without the webhook manifests (a bin/kueue-crds of before).
	dir := t.TempDir()
	crd, err := os.ReadFile(filepath.Join(kueueCRDDirForTest(t), "kueue.x-k8s.io_topologies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "topologies.yaml"), crd, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GKE_SANDBOX_KUEUE", "/bin/true")
	if _, err := findKueue(Options{KueueCRDs: dir}); err == nil || !strings.Contains(err.Error(), "webhook kustomization") || !strings.Contains(err.Error(), "make sandbox-bin") {
		t.Errorf("no webhook manifests: %v; want an error that says `make sandbox-bin`", err)
	}
	if parts, err := findKueue(Options{NoWorkloads: true}); parts != nil || err != nil {
		t.Errorf("NoWorkloads: %+v, %v; want Kueue left out", parts, err)
	}
}

// kueueCRDDirForTest is the Kueue CRD directory, or skips the test.
func kueueCRDDirForTest(t *testing.T) string {
	t.Helper()
	dir, err := KueueCRDDir(Options{})
	if err != nil {
		t.Skip(err)
	}
	return dir
}

// The webhook configurations are Kueue's as its release installs them: its
// names, its webhooks and paths, failing closed, and the namespaceSelector
// its kustomization gives the webhooks of workloads (pods, Jobs, JobSets,
// Deployments, StatefulSets and the other integrations: a patch of the pod
// webhook, copied to the others by replacements), so that kube-system and
// kueue-system are left alone, and not those of Kueue's own objects; the
// conversion webhooks
// are those its CRD kustomization applies.
func TestKueueWebhooksAsShipped(t *testing.T) {
	t.Parallel()
	dir := kueueCRDDirForTest(t)
	configs, err := readKueueWebhooks(dir)
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
	if want := []string{"MutatingWebhookConfiguration/kueue-mutating-webhook-configuration", "ValidatingWebhookConfiguration/kueue-validating-webhook-configuration"}; !slices.Equal(names, want) {
		t.Errorf("configurations %v, want %v", names, want)
	}
	for name, path := range map[string]string{
		"mjob.kb.io": "/mutate-batch-v1-job", "vjob.kb.io": "/validate-batch-v1-job",
		"mjobset.kb.io": "/mutate-jobset-x-k8s-io-v1alpha2-jobset", "vjobset.kb.io": "/validate-jobset-x-k8s-io-v1alpha2-jobset",
		"vclusterqueue.kb.io": "/validate-kueue-x-k8s-io-v1beta2-clusterqueue", "mworkload.kb.io": "/mutate-kueue-x-k8s-io-v1beta2-workload",
		"vworkload.kb.io": "/validate-kueue-x-k8s-io-v1beta2-workload", "vresourceflavor.kb.io": "/validate-kueue-x-k8s-io-v1beta2-resourceflavor",
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
	}
	kueueOwn := []string{"mclusterqueue.kb.io", "vclusterqueue.kb.io", "vcohort.kb.io", "mresourceflavor.kb.io", "vresourceflavor.kb.io", "mworkload.kb.io", "vworkload.kb.io"}
	for _, name := range []string{"mpod.kb.io", "vpod.kb.io", "mjob.kb.io", "vjob.kb.io", "mjobset.kb.io", "vjobset.kb.io", "mdeployment.kb.io", "vstatefulset.kb.io"} {
		if _, ok := got[name]; !ok {
			t.Errorf("no webhook %s", name)
		}
	}
	for name, w := range got {
		exprs, _, _ := unstructured.NestedSlice(w, "namespaceSelector", "matchExpressions")
		workload := !slices.Contains(kueueOwn, name)
		want := "[map[key:kubernetes.io/metadata.name operator:NotIn values:[kube-system kueue-system]]]"
		if workload && fmt.Sprint(exprs) != want {
			t.Errorf("webhook %s namespaceSelector %v, want %s (the release's patch and replacements)", name, exprs, want)
		}
		if !workload && len(exprs) != 0 {
			t.Errorf("webhook %s namespaceSelector %v, want none", name, exprs)
		}
	}

	// A patch of a webhook the configuration lacks, or of more than the
	// webhooks, is refused, not half applied.
	c := configs[0].DeepCopy()
	patch := &unstructured.Unstructured{Object: map[string]any{"webhooks": []any{map[string]any{"name": "nosuch.kb.io", "timeoutSeconds": int64(5)}}}}
	if err := mergeWebhooksByName(c, patch); err == nil {
		t.Error("a patch of an unknown webhook was applied")
	}
	patch = &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	if err := mergeWebhooksByName(c, patch); err == nil {
		t.Error("a patch of more than the webhooks was applied")
	}
	// So is a replacement of another form, or naming a webhook the
	// configurations lack.
	var r kueueReplacement
	r.Source.Kind, r.Source.Name, r.Source.FieldPath = "ValidatingWebhookConfiguration", "validating-webhook-configuration", "webhooks.[name=vpod.kb.io].namespaceSelector"
	r.Targets = make([]kueueReplacementTarget, 1)
	r.Targets[0].Select.Kind, r.Targets[0].Select.Name = "MutatingWebhookConfiguration", "mutating-webhook-configuration"
	r.Targets[0].Options.Create = true
	unprefixed := func() []*unstructured.Unstructured {
		var out []*unstructured.Unstructured
		for _, c := range configs {
			c = c.DeepCopy()
			c.SetName(strings.TrimPrefix(c.GetName(), kueueNamePrefix))
			out = append(out, c)
		}
		return out
	}
	for _, paths := range [][]string{{"webhooks.[name=nosuch.kb.io].namespaceSelector"}, {"webhooks.0.namespaceSelector"}} {
		r.Targets[0].FieldPaths = paths
		if err := applyWebhookReplacement(unprefixed(), r); err == nil {
			t.Errorf("a replacement to %v was applied", paths)
		}
	}
	r.Targets[0].FieldPaths = []string{"webhooks.[name=mjob.kb.io].namespaceSelector"}
	if err := applyWebhookReplacement(unprefixed(), r); err != nil {
		t.Errorf("a replacement as the release writes them: %v", err)
	}

	convs, err := readKueueConversions(dir)
	if err != nil {
		t.Fatal(err)
	}
	var crds []string
	for _, c := range convs {
		crds = append(crds, c.CRD)
		pointed, err := pointConversion(c, "https://127.0.0.1:1", []byte("ca"))
		if err != nil {
			t.Fatal(err)
		}
		if url, _, _ := unstructured.NestedString(pointed, "webhook", "clientConfig", "url"); pointed["strategy"] != "Webhook" || url != "https://127.0.0.1:1/convert" {
			t.Errorf("conversion of %s: %v; want strategy Webhook, url https://127.0.0.1:1/convert", c.CRD, pointed)
		}
		if _, has, _ := unstructured.NestedMap(c.Conversion, "webhook", "clientConfig", "url"); has {
			t.Errorf("pointing the conversion of %s changed the shipped one", c.CRD)
		}
	}
	slices.Sort(crds)
	want := []string{"clusterqueues." + KueueGroup, "cohorts." + KueueGroup, "localqueues." + KueueGroup, "multikueueclusters." + KueueGroup, "workloads." + KueueGroup}
	if !slices.Equal(crds, want) {
		t.Errorf("conversion webhooks for %v, want %v (the CRD kustomization's; resourceflavors is commented out)", crds, want)
	}
}

// Kueue runs, is one of the sandbox's processes, is the pinned release,
// and its webhooks answer: its validating webhook refuses what its CRD
// admits (a negative quota), and v1beta1 objects are converted by it.
func TestKueueRunning(t *testing.T) {
	needSandbox(t)
	if !slices.Contains(testSandbox.Parts(), "kueue") {
		t.Errorf("Parts() = %v; want kueue among them", testSandbox.Parts())
	}
	if testSandbox.kueueController == nil {
		t.Fatal("Kueue is not running")
	}
	pid := testSandbox.kueueController.cmd.Process.Pid
	if !slices.Contains(testSandbox.Processes(), pid) {
		t.Errorf("Processes() %v does not list Kueue (%d)", testSandbox.Processes(), pid)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Errorf("Kueue (%d): %v", pid, err)
	}
	want := pinnedKueueVersion(t)
	log, err := os.ReadFile(filepath.Join(testSandbox.Dir, "kueue.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), `"gitVersion":"`+want+`"`) {
		t.Errorf("kueue.log does not show gitVersion %s:\n%.2000s", want, log)
	}

	dyn := testDynamic(t)
	ctx := testContext(t)
	_, err = dyn.Resource(kueueClusterQueues).Create(ctx, kueueProbe("v1beta2", "-8"), metav1.CreateOptions{})
	var status *apierrors.StatusError
	if !errors.As(err, &status) || !strings.Contains(err.Error(), `admission webhook "vclusterqueue.kb.io" denied the request`) ||
		!strings.Contains(err.Error(), "nominalQuota") {
		t.Errorf("a ClusterQueue with a negative quota: %v; want it refused by Kueue's validating webhook", err)
	}

	// Kueue manages Jobs and JobSets that name a queue: its webhooks
	// suspend them (until it admits them).
	js := exclusiveJobSet("default", "kueue-running-probe")
	js.SetLabels(map[string]string{kueueQueueNameLabel: "kueue-running"})
	if got, err := dyn.Resource(JobSetGVR).Namespace("default").Create(ctx, js, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("a JobSet with a queue name: %v", err)
	} else if suspended, _, _ := unstructured.NestedBool(got.Object, "spec", "suspend"); !suspended {
		t.Error("a JobSet with a queue name is not suspended; want it suspended by Kueue's webhook")
	}
	job := kqJobSpec("kueue-running-probe", "kueue-running", 1, nil)
	if got, err := testKube(t).BatchV1().Jobs("default").Create(ctx, job, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil || !ptr.Deref(got.Spec.Suspend, false) {
		t.Errorf("a Job with a queue name: %v; want it suspended by Kueue's webhook", err)
	}
	job.Labels = nil
	if got, err := testKube(t).BatchV1().Jobs("default").Create(ctx, job, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil || ptr.Deref(got.Spec.Suspend, false) {
		t.Errorf("a Job without a queue name: %v; want it left alone (manageJobsWithoutQueueName is false)", err)
	}

	// Stored as v1beta2, read as v1beta1 through Kueue's conversion
	// webhook (v1beta2's cohortName is v1beta1's cohort).
	cq := kueueProbe("v1beta2", "8")
	cq.SetName("kueue-running-convert")
	if err := unstructured.SetNestedField(cq.Object, "kueue-running-cohort", "spec", "cohortName"); err != nil {
		t.Fatal(err)
	}
	if _, err := dyn.Resource(kueueClusterQueues).Create(ctx, cq, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = dyn.Resource(kueueClusterQueues).Delete(context.Background(), cq.GetName(), metav1.DeleteOptions{})
	})
	cfg := testSandbox.RESTConfig()
	cfg.WarningHandler = rest.NoWarnings{}
	oldDyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	old, err := oldDyn.Resource(kueueClusterQueuesV1).Get(ctx, cq.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the ClusterQueue as v1beta1: %v", err)
	}
	if cohort, _, _ := unstructured.NestedString(old.Object, "spec", "cohort"); cohort != "kueue-running-cohort" {
		t.Errorf("v1beta1 spec.cohort %q, want kueue-running-cohort (converted from v1beta2's cohortName)", cohort)
	}
}

// A Kueue that does not come up fails Start with an error that names it
// and its log (here a "controller" that exits at once), and what had
// started is stopped.
func TestKueueControllerFails(t *testing.T) {
	startFailsNaming(t, func(o *Options) { o.Kueue = "/bin/false" }, "Kueue", "kueue")
}
