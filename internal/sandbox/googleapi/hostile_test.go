package googleapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

const policyAnswer = `{"kind":"compute#operation","name":"operation-1","status":"DONE","progress":100,"endTime":"2026-01-01T00:00:00Z","targetLink":"https://compute/p/resourcePolicies/wp"}`

// hostileFront is the compute API's front with faults before an API that
// answers every request with a DONE operation named by the request's
// "op" query (operation-1 when none); served counts the requests the API
// served.
func hostileFront(t *testing.T, faults cloud.APIFaults) (*httptest.Server, *cloud.World, *atomic.Int32) {
	t.Helper()
	w := &cloud.World{Token: "t", Faults: cloud.Faults{Compute: faults}}
	var served atomic.Int32
	srv := httptest.NewServer(googleapi.Front(w, "compute", func(f *cloud.Faults) *cloud.APIFaults { return &f.Compute },
		http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			served.Add(1)
			answer := policyAnswer
			if op := r.URL.Query().Get("op"); op != "" {
				answer = strings.Replace(answer, "operation-1", op, 1)
			}
			rw.Header().Set("Content-Type", "application/json; charset=UTF-8")
			_, _ = rw.Write([]byte(answer))
		})))
	t.Cleanup(srv.Close)
	return srv, w, &served
}

type answer struct {
	status      int
	contentType string
	body        string
}

func call(t *testing.T, srv *httptest.Server, method, path string) answer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer t")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return answer{resp.StatusCode, resp.Header.Get("Content-Type"), string(b)}
}

const policiesPath = "/compute/v1/projects/p/regions/r/resourcePolicies"

// Each hostile fault answers as a broken proxy does, and is counted; the
// API serves the request when the fault comes after it (a cut or lost
// answer), not when the proxy could not reach it.
func TestHostileAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		faults cloud.APIFaults
		want   func(a answer) bool
		served int32
		fault  string
	}{
		{"cut JSON", cloud.APIFaults{RateCutJSON: 1}, func(a answer) bool {
			return a.status == 200 && a.body == policyAnswer[:len(policyAnswer)/2] && !json.Valid([]byte(a.body))
		}, 1, cloud.FaultCutJSON},
		{"proxy page", cloud.APIFaults{RateProxyPage: 1}, func(a answer) bool {
			return a.status == 502 && a.contentType == "text/html" && strings.Contains(a.body, "<h1>502 Bad Gateway</h1>")
		}, 0, cloud.FaultProxyPage},
		{"empty 200", cloud.APIFaults{RateEmpty200: 1}, func(a answer) bool {
			return a.status == 200 && a.body == ""
		}, 1, cloud.FaultEmpty200},
		{"wrong shape", cloud.APIFaults{RateWrongShape: 1}, func(a answer) bool {
			var env map[string]json.RawMessage
			return a.status == 200 && a.contentType == "application/json; charset=UTF-8" && json.Unmarshal([]byte(a.body), &env) == nil &&
				len(env) == 3 && string(env["data"]) == policyAnswer && string(env["upstreamStatus"]) == "200" && env["gateway"] != nil
		}, 1, cloud.FaultWrongShape},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, w, served := hostileFront(t, tc.faults)
			a := call(t, srv, http.MethodPost, policiesPath)
			if !tc.want(a) {
				t.Errorf("answer %+v is not a %s", a, tc.name)
			}
			if served.Load() != tc.served {
				t.Errorf("the API served %d requests, want %d", served.Load(), tc.served)
			}
			w.Mu.Lock()
			n := w.Injected["compute "+tc.fault]
			w.Mu.Unlock()
			if n != 1 {
				t.Errorf("injected %q counted %d times, want 1", tc.fault, n)
			}
		})
	}
}

// MaxBurst bounds the hostile answers one request gets in a row: with every
// request faulty and a burst of 2, the third try of a request is served
// whole.
func TestHostileAnswersBurstIsBounded(t *testing.T) {
	t.Parallel()
	srv, _, _ := hostileFront(t, cloud.APIFaults{RateCutJSON: 0.5, RateEmpty200: 0.5, MaxBurst: 2})
	for i := 1; i <= 2; i++ {
		if a := call(t, srv, http.MethodGet, policiesPath+"/wp"); a.body == policyAnswer {
			t.Fatalf("try %d served whole, want a hostile answer", i)
		}
	}
	if a := call(t, srv, http.MethodGet, policiesPath+"/wp"); a.body != policyAnswer {
		t.Errorf("third try answered %+v, want the API's answer", a)
	}
}

// A held operation is RUNNING in every answer that shows it, the one that
// started it and each get of it, whatever the API says; only as many
// operations as HoldOperations are held.
func TestHeldOperationNeverFinishes(t *testing.T) {
	t.Parallel()
	srv, w, served := hostileFront(t, cloud.APIFaults{HoldOperations: 1})
	status := func(a answer) string {
		var op struct{ Status, EndTime string }
		if err := json.Unmarshal([]byte(a.body), &op); err != nil {
			t.Fatalf("answer %q: %v", a.body, err)
		}
		return op.Status + " " + op.EndTime
	}
	if got := status(call(t, srv, http.MethodPost, policiesPath+"?op=op-held")); got != "RUNNING " {
		t.Errorf("the insert's operation is %q, want RUNNING with no end", got)
	}
	for range 3 {
		if got := status(call(t, srv, http.MethodGet, "/compute/v1/projects/p/regions/r/operations/op-held?op=op-held")); got != "RUNNING " {
			t.Errorf("a get of the held operation says %q, want RUNNING", got)
		}
	}
	if got := status(call(t, srv, http.MethodPost, "/compute/v1/projects/p/regions/r/operations/op-held/wait?op=op-held")); got != "RUNNING " {
		t.Errorf("a wait of the held operation says %q, want RUNNING", got)
	}
	if got := status(call(t, srv, http.MethodPost, policiesPath+"?op=op-2")); got != "DONE 2026-01-01T00:00:00Z" {
		t.Errorf("the second insert's operation is %q, want it as the API answered (one held)", got)
	}
	if served.Load() != 6 || !w.Held.Held("compute", "op-held") || w.Held.Held("compute", "op-2") {
		t.Errorf("served %d, held op-held %v, op-2 %v: want all 6 served, only the first held", served.Load(),
			w.Held.Held("compute", "op-held"), w.Held.Held("compute", "op-2"))
	}
}

// The gateway's envelope holds the API's answer as it came: JSON as JSON,
// anything else as a string; it is JSON either way.
func TestGatewayEnvelope(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body string
		data string
	}{
		{`{"error":{"code":404}}`, `{"error":{"code":404}}`},
		{"not JSON\n", `"not JSON\n"`},
		{"", `""`},
	} {
		var env map[string]json.RawMessage
		if err := json.Unmarshal(googleapi.GatewayEnvelope(404, []byte(tc.body)), &env); err != nil {
			t.Fatalf("envelope of %q is not JSON: %v", tc.body, err)
		}
		if string(env["data"]) != tc.data || string(env["upstreamStatus"]) != "404" {
			t.Errorf("envelope of %q holds data %s, status %s; want %s, 404", tc.body, env["data"], env["upstreamStatus"], tc.data)
		}
	}
}
