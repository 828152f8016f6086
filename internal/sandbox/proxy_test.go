package sandbox

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

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
	testsupport.Until(t, 20*time.Millisecond, "the watch to show up at the proxy", func() bool { return testSandbox.OpenWatches() > 0 })
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for range w.ResultChan() { // until the watch ends
		}
	}()
	if n := testSandbox.CutWatches(); n < 1 {
		t.Fatalf("CutWatches cut %d", n)
	}
	testsupport.Await(t, ended, "CutWatches to end the watch")
}

func TestKubeRequestKey(t *testing.T) {
	t.Parallel()
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
