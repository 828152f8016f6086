package clients

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

var slicesGVR = schema.GroupVersionResource{Group: "accelerator.gke.io", Version: "v1beta1", Resource: "slices"}

// kubeServer is a cluster's API server (or what stands in its place) that
// answers every request with answer; it returns the clients of it.
func kubeServer(t *testing.T, answer http.HandlerFunc) (*Kubernetes, string) {
	t.Helper()
	srv := httptest.NewTLSServer(answer)
	t.Cleanup(srv.Close)
	set, err := New(t.Context(), Config{Kubernetes: &KubernetesConfig{Host: srv.URL, Token: "t", ClusterCACertificate: string(certPEM(srv))}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := set.Kubernetes(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return k, strings.TrimPrefix(srv.URL, "https://")
}

// A list answered with what is not a Kubernetes object fails naming the
// API server's host, the answer and what to check, for the JSON (dynamic)
// client and the protobuf (typed) one.
func TestKubernetesMalformedAnswerIsNamed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, contentType, body, problem string
	}{
		{"proxy page", "text/html", proxyPage, "the content type is not JSON, and byte 0 is '<' where a JSON object should begin"},
		{"cut JSON", "application/json", `{"kind":"SliceList","apiVersion":"accelerator.gke.io/v1beta1","items":[{"metadata":{"na`, "the JSON is cut short"},
		{"empty 200", "application/json", "", "the body is empty"},
		{"JSON array", "application/json", `[1,2,3]`, "byte 0 is '['"},
		{"cut protobuf", "application/vnd.kubernetes.protobuf", "k8", "does not begin as a protobuf Kubernetes object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			k, host := kubeServer(t, func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", tc.contentType)
				_, _ = w.Write([]byte(tc.body))
			})
			var err error
			if strings.Contains(tc.contentType, "protobuf") {
				_, err = k.Core.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
			} else {
				_, err = k.Dynamic.Resource(slicesGVR).List(t.Context(), metav1.ListOptions{})
			}
			var bad *MalformedAnswerError
			if !errors.As(err, &bad) {
				t.Fatalf("List = %v, want a MalformedAnswerError", err)
			}
			for _, want := range []string{"Kubernetes API at " + host, "to a GET", "HTTP 200", tc.problem, "expected a Kubernetes object", "kubernetes.host"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
		})
	}
}

// A whole answer, JSON or protobuf, is decoded as before, and an error
// answer stays client-go's (a 404 is still a NotFound).
func TestKubernetesWholeAnswersPass(t *testing.T) {
	t.Parallel()
	k, _ := kubeServer(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/slices/gone") {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte("<html>not here</html>"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"SliceList","apiVersion":"accelerator.gke.io/v1beta1","metadata":{},"items":[{"metadata":{"name":"s1"}}]}`))
	})
	list, err := k.Dynamic.Resource(slicesGVR).List(t.Context(), metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetName() != "s1" {
		t.Fatalf("List = %v, %v; want slice s1", list, err)
	}
	_, err = k.Dynamic.Resource(slicesGVR).Get(t.Context(), "gone", metav1.GetOptions{})
	var bad *MalformedAnswerError
	if err == nil || errors.As(err, &bad) {
		t.Errorf("Get of a 404 = %v, want client-go's error, not a malformed answer", err)
	}
}

// A watch that sends garbage after an event ends with an error event
// naming the answer; the event before it is delivered.
func TestKubernetesWatchGarbageIsNamed(t *testing.T) {
	t.Parallel()
	k, host := kubeServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"type":"ADDED","object":{"kind":"Slice","apiVersion":"accelerator.gke.io/v1beta1","metadata":{"name":"s1"}}}` + "\n"))
		w.(http.Flusher).Flush()
		_, _ = w.Write([]byte("<html><body>504 Gateway Time-out</body></html>"))
	})
	wi, err := k.Dynamic.Resource(slicesGVR).Watch(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wi.Stop)
	first := testsupport.Await(t, wi.ResultChan(), "the watch's first event")
	if first.Type != watch.Added {
		t.Fatalf("first event %s, want ADDED", first.Type)
	}
	second := testsupport.Await(t, wi.ResultChan(), "the watch's error event")
	status, ok := second.Object.(*metav1.Status)
	if second.Type != watch.Error || !ok {
		t.Fatalf("second event %s %T, want an ERROR with a status", second.Type, second.Object)
	}
	for _, want := range []string{"malformed answer from the Kubernetes API at " + host, "byte 110 is '<'", "from byte 110 the body reads", "<html><body>504 Gateway Time-out", "a stream of Kubernetes watch events", "kubernetes.host"} {
		if !strings.Contains(status.Message, want) {
			t.Errorf("watch error %q does not say %q", status.Message, want)
		}
	}
}
