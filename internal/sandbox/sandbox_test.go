package sandbox

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

func newSliceObject(name, sliceType, topology string, partitions ...string) *unstructured.Unstructured {
	ids := make([]any, len(partitions))
	for i, p := range partitions {
		ids[i] = p
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "accelerator.gke.io/v1beta1",
		"kind":       "Slice",
		"metadata":   map[string]any{"name": name},
		"spec":       map[string]any{"type": sliceType, "topology": topology, "partitionIds": ids},
	}}
}

func TestKubectlListsSliceCRD(t *testing.T) {
	needSandbox(t)
	out, err := exec.Command("kubectl", "--kubeconfig", testSandbox.Kubeconfig, "get", "crd", "slices.accelerator.gke.io", "-o", "name").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl get crd: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "customresourcedefinition.apiextensions.k8s.io/slices.accelerator.gke.io" {
		t.Fatalf("kubectl printed %q", got)
	}
}

// The CRD enforces the documented schema: the type enum, the topology
// pattern, at least one partition, and immutable spec fields.
func TestSliceCRDSchema(t *testing.T) {
	needSandbox(t)
	ctx := context.Background()
	dyn, err := dynamic.NewForConfig(testSandbox.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	slices := dyn.Resource(SliceGVR)
	for name, obj := range map[string]*unstructured.Unstructured{
		"type not in enum": newSliceObject("schema-bad-type", "v5p", "4x4x4", "p0"),
		"topology pattern": newSliceObject("schema-bad-topology", "tpu7x", "4x4x", "p0"),
		"no partitions":    newSliceObject("schema-no-partitions", "tpu7x", "4x4x4"),
	} {
		if _, err := slices.Create(ctx, obj, metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
			t.Errorf("%s: Create = %v, want Invalid", name, err)
		}
	}

	created, err := slices.Create(ctx, newSliceObject("schema-immutable", "tpu7x", "4x4x4", "p0"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteSliceAndWait(t, "schema-immutable") })
	// A merge patch carries no resourceVersion, so the controller's own
	// writes (its finalizer) cannot make it conflict.
	_, err = slices.Patch(ctx, created.GetName(), types.MergePatchType, []byte(`{"spec":{"topology":"4x4x8"}}`), metav1.PatchOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "topology is immutable") {
		t.Errorf("changing the topology: %v, want 'topology is immutable'", err)
	}
}

// Kubernetes is served with the sandbox CA and bearer-token auth only.
func TestKubernetesAuthAndTLS(t *testing.T) {
	needSandbox(t)
	kube, err := kubernetes.NewForConfig(testSandbox.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatalf("listing nodes with the sandbox token: %v", err)
	}
	bad := testSandbox.RESTConfig()
	bad.BearerToken = "wrong"
	kubeBad, _ := kubernetes.NewForConfig(bad)
	if _, err := kubeBad.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{}); !apierrors.IsUnauthorized(err) {
		t.Errorf("wrong token: %v, want Unauthorized", err)
	}
	resp, err := http.Get(testSandbox.KubeHost + "/version")
	if err == nil {
		_ = resp.Body.Close()
		t.Errorf("a client without the sandbox CA connected")
	}
}

// CutWatches ends an open watch: the client sees its result channel close.
func TestProxyCutsWatches(t *testing.T) {
	needSandbox(t)
	kube, err := kubernetes.NewForConfig(testSandbox.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	w, err := kube.CoreV1().Nodes().Watch(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	deadline := time.Now().Add(10 * time.Second)
	for testSandbox.OpenWatches() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the watch never showed up at the proxy")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := testSandbox.CutWatches(); n < 1 {
		t.Fatalf("CutWatches cut %d", n)
	}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case _, open := <-w.ResultChan():
			if !open {
				return
			}
		case <-timeout:
			t.Fatal("the watch was not ended by CutWatches")
		}
	}
}

func TestKubeRequestKey(t *testing.T) {
	for _, tc := range []struct{ method, url, want string }{
		{"GET", "/api/v1/nodes?limit=500", "list nodes"},
		{"GET", "/api/v1/nodes?limit=500&continue=abc", "list-page nodes"},
		{"GET", "/api/v1/nodes?watch=true&resourceVersion=10", "watch nodes"},
		{"GET", "/api/v1/nodes?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true", "watchlist nodes"},
		{"GET", "/api/v1/nodes/gke-n-1", "get nodes"},
		{"PATCH", "/api/v1/nodes/gke-n-1/status", "patch nodes/status"},
		{"GET", "/api/v1/namespaces/default/events?fieldSelector=x", "list events"},
		{"POST", "/api/v1/namespaces/default/events", "create events"},
		{"GET", "/apis/accelerator.gke.io/v1beta1/slices/s1", "get slices"},
		{"PUT", "/apis/accelerator.gke.io/v1beta1/slices/s1/status", "update slices/status"},
		{"DELETE", "/apis/accelerator.gke.io/v1beta1/slices/s1", "delete slices"},
		{"DELETE", "/apis/accelerator.gke.io/v1beta1/slices", "deletecollection slices"},
		{"GET", "/api/v1/namespaces/kube-system", "get namespaces"},
		{"GET", "/version", "GET /version"},
		{"GET", "/apis", "GET /apis"},
		{"GET", "/apis/accelerator.gke.io/v1beta1", "GET /apis/accelerator.gke.io/v1beta1"},
	} {
		r := httptest.NewRequest(tc.method, tc.url, nil)
		if got := kubeRequestKey(r); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.method, tc.url, got, tc.want)
		}
	}
}

// The proxy counts client requests by verb and resource.
func TestProxyCountsByVerbAndResource(t *testing.T) {
	needSandbox(t)
	kube, err := kubernetes.NewForConfig(testSandbox.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	before := testSandbox.KubeRequestCounts()
	for range 3 {
		if _, err := kube.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{Limit: 1}); err != nil {
		t.Fatal(err)
	}
	after := testSandbox.KubeRequestCounts()
	if d := after["get namespaces"] - before["get namespaces"]; d != 3 {
		t.Errorf("get namespaces counted %d times, want 3", d)
	}
	if d := after["list nodes"] - before["list nodes"]; d != 1 {
		t.Errorf("list nodes counted %d times, want 1", d)
	}
}
