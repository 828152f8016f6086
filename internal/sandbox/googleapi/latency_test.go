package googleapi_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// An API's injected latency is one of the world's delays, named by the
// request: the request reaches its handler, and is answered, only once
// the delay has ended.
func TestLatencyIsADelay(t *testing.T) {
	t.Parallel()
	type held struct {
		d    cloud.Delay
		then func()
	}
	delays := make(chan held, 4)
	w := &cloud.World{Token: "t", Faults: cloud.Faults{Compute: cloud.APIFaults{LatencyMs: 300}},
		Schedule: func(d cloud.Delay, then func()) { delays <- held{d, then} }}
	reached := make(chan struct{}, 4)
	srv := httptest.NewServer(googleapi.Front(w, "compute", func(f *cloud.Faults) *cloud.APIFaults { return &f.Compute },
		http.HandlerFunc(func(rw http.ResponseWriter, _ *http.Request) {
			reached <- struct{}{}
			_, _ = rw.Write([]byte("answered"))
		})))
	t.Cleanup(srv.Close)

	type answer struct {
		body string
		err  error
	}
	answers := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/compute/v1/projects/p/zones/z/reservations/r", nil)
		req.Header.Set("Authorization", "Bearer t")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answers <- answer{err: err}
			return
		}
		defer func() { _ = resp.Body.Close() }()
		b, err := io.ReadAll(resp.Body)
		answers <- answer{string(b), err}
	}()
	h := testsupport.Await(t, delays, "the request's latency")
	if want := (cloud.Delay{Kind: cloud.DelayLatency, Of: "compute GET /compute/v1/projects/p/zones/z/reservations/r", For: 300 * time.Millisecond}); h.d != want {
		t.Errorf("delay %+v, want %+v", h.d, want)
	}
	select {
	case <-reached:
		t.Fatal("the request reached its handler while its latency was held")
	case a := <-answers:
		t.Fatalf("the request was answered (%q, %v) while its latency was held", a.body, a.err)
	default:
	}
	h.then()
	if a := testsupport.Await(t, answers, "the answer once the latency ended"); a.err != nil || a.body != "answered" {
		t.Errorf("answer %q, %v; want the handler's", a.body, a.err)
	}
	if n := len(delays); n != 0 {
		t.Errorf("%d more delays for one request", n)
	}
}
