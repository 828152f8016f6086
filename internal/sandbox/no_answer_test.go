package sandbox

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// heldServer serves h as the sandbox serves its APIs (an http.Server,
// which Stop closes). reached and ended receive one value for each request
// that reached h, and that h finished.
func heldServer(t *testing.T, h http.Handler) (srv *http.Server, url string, reached, ended chan struct{}) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	reached, ended = make(chan struct{}, 16), make(chan struct{}, 16)
	srv = &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- struct{}{}
		h.ServeHTTP(w, r)
		ended <- struct{}{}
	})}
	go func() { _ = srv.Serve(l) }()
	return srv, "http://" + l.Addr().String(), reached, ended
}

// A held request writes nothing, and its handler ends when the server
// stops: a held request never outlives the sandbox.
func TestNoAnswerHoldsUntilTheServerStops(t *testing.T) {
	t.Parallel()
	answered := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("answered")) })
	w := &cloud.World{Token: "t", Faults: Faults{Compute: APIFaults{NoAnswer: true}}}
	proxy := &kubeProxy{watches: map[uint64]context.CancelFunc{}}
	hold := func(string) int { return kubeHold }
	proxy.deny.Store(&hold)
	for name, h := range map[string]http.Handler{
		"google api":       googleapi.Front(w, "compute", func(f *Faults) *APIFaults { return &f.Compute }, answered),
		"kubernetes proxy": proxy.handler(answered),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, url, reached, ended := heldServer(t, h)
			type result struct {
				resp *http.Response
				err  error
			}
			got := make(chan result, 1)
			go func() {
				req, _ := http.NewRequest(http.MethodGet, url+"/compute/v1/projects/p/zones/z/reservations/r", nil)
				req.Header.Set("Authorization", "Bearer t")
				resp, err := http.DefaultClient.Do(req)
				got <- result{resp, err}
			}()
			testsupport.Await(t, reached, "the request to reach the handler")
			select {
			case r := <-got:
				t.Fatalf("the held request was answered: %v, %v", r.resp, r.err)
			case <-ended:
				t.Fatal("the held request's handler ended before the server stopped")
			default:
			}
			_ = srv.Close()
			testsupport.Await(t, ended, "the held request's handler to end when the server stopped")
			if r := <-got; r.err == nil {
				_ = r.resp.Body.Close()
				t.Errorf("the held request got %s, want no answer", r.resp.Status)
			}
		})
	}
}

// With the faults set, the sandbox's Google APIs and Kubernetes endpoint
// take requests and never answer them, while the control endpoint still
// answers; cleared, they answer again.
func TestNoAnswerFaults(t *testing.T) {
	needSandbox(t)
	withFaults(t, Faults{Compute: APIFaults{NoAnswer: true}, Container: APIFaults{NoAnswer: true}, KubeNoAnswer: true})

	// A held request is never answered: a client that gives up after
	// 300 ms gets an error however slow the machine. What must be answered
	// is asked with no such bound, within the test's context only.
	held := &http.Client{Timeout: 300 * time.Millisecond}
	ctx := testContext(t)
	get := func(google *http.Client, path string) (int, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, testSandbox.GoogleURL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+testSandbox.Token)
		resp, err := google.Do(req)
		if err != nil {
			return 0, err
		}
		_ = resp.Body.Close()
		return resp.StatusCode, nil
	}
	cfg := testSandbox.RESTConfig()
	cfg.Timeout = 300 * time.Millisecond
	heldKube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	listNodes := func(kube kubernetes.Interface) error {
		_, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1})
		return err
	}
	for _, path := range []string{"compute/v1/projects/p/regions/r/resourcePolicies/x", "v1/projects/p/locations/l/clusters/c"} {
		if code, err := get(held, path); err == nil {
			t.Errorf("GET %s answered %d, want no answer", path, code)
		}
	}
	if err := listNodes(heldKube); err == nil {
		t.Error("listing nodes through the Kubernetes endpoint was answered, want no answer")
	}
	if code, err := get(http.DefaultClient, "sandbox/faults"); err != nil || code != http.StatusOK {
		t.Errorf("the control endpoint: %d, %v; want 200", code, err)
	}

	testSandbox.SetFaults(Faults{})
	if code, err := get(http.DefaultClient, "v1/projects/p/locations/l/clusters/c"); err != nil || code == 0 {
		t.Errorf("GKE after the fault was cleared: %d, %v; want an answer", code, err)
	}
	if err := listNodes(testKube(t)); err != nil {
		t.Errorf("listing nodes after the fault was cleared: %v", err)
	}
}
