package computeapi_test

import (
	"bytes"
	"encoding/json"
	"log"
	"net/http"
	"strings"
	"sync"
	"testing"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"golang.org/x/oauth2"
	"google.golang.org/api/option"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// The API as Google's front end (googleapi.Front) serves it: the token,
// the injected faults the real clients retry or surface, and the 404 of
// what the API does not serve.

func TestComputeRequiresToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	c, err := compute.NewReservationsRESTClient(ctx, option.WithEndpoint(e.url), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_, err = c.Get(ctx, &computepb.GetReservationRequest{Project: inv.Project, Zone: inv.Zone, Reservation: testReservation})
	wantAPIError(t, err, http.StatusUnauthorized, "use the sandbox access token")

	wrong, err := compute.NewReservationsRESTClient(ctx, option.WithEndpoint(e.url),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "not-the-token"})))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = wrong.Close() }()
	_, err = wrong.Get(ctx, &computepb.GetReservationRequest{Project: inv.Project, Zone: inv.Zone, Reservation: testReservation})
	wantAPIError(t, err, http.StatusUnauthorized, "use the sandbox access token")
}

// The client retries a GET answered 503: with every request failing but
// for the third try in a row (MaxBurst 2), the GET succeeds after exactly
// two 503s and three requests, however long its backoff takes.
func TestComputeInjected503IsRetried(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := newComputeClient(t, e, compute.NewReservationsRESTClient)
	get := &computepb.GetReservationRequest{Project: inv.Project, Zone: inv.Zone, Reservation: testReservation}
	// Served without a fault, the GET clears any streak of faults an
	// earlier test left on its path: the burst below starts at none.
	if _, err := c.Get(testContext(t), get); err != nil {
		t.Fatal(err)
	}
	e.setFaults(cloud.Faults{Compute: cloud.APIFaults{Rate503: 1, MaxBurst: 2}})
	before, faultsBefore := e.requests("compute GET reservations"), e.injected("compute 503")
	if _, err := c.Get(testContext(t), get); err != nil {
		t.Fatalf("get with two 503s before the answer: %v; want the client to retry them", err)
	}
	n, faults := e.requests("compute GET reservations")-before, e.injected("compute 503")-faultsBefore
	if n != 3 || faults != 2 {
		t.Errorf("%d request(s) reached the API, %d answered 503; want 3 and 2", n, faults)
	}
	var err error

	// Insert is not retried by the client: the 503 surfaces as is.
	p := newComputeClient(t, e, compute.NewResourcePoliciesRESTClient)
	err = insertPolicy(testContext(t), p, dynamicSlicingPolicy("wp-503"))
	wantAPIError(t, err, http.StatusServiceUnavailable, "The service is currently unavailable (sandbox fault)")
}

func TestComputeInjected429(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setFaults(cloud.Faults{Compute: cloud.APIFaults{Rate429: 1}})
	c := newComputeClient(t, e, compute.NewReservationsRESTClient)
	_, err := c.Get(testContext(t), &computepb.GetReservationRequest{Project: inv.Project, Zone: inv.Zone, Reservation: testReservation})
	wantAPIError(t, err, http.StatusTooManyRequests, "Rate Limit Exceeded (sandbox fault)")
}

func TestComputeUnknownPathIs404(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "compute/v1/projects/sandbox-project/global/networks"},
		{http.MethodPut, "compute/v1/projects/sandbox-project/regions/us-central1/resourcePolicies/p"},
		{http.MethodGet, "compute/v1/projects/sandbox-project/aggregated/instances"},
	} {
		req, err := http.NewRequest(tc.method, e.url+"/"+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusNotFound || body.Error.Code != http.StatusNotFound || body.Error.Message == "" {
			t.Errorf("%s %s: HTTP %d, body %+v, decode error %v; want a 404 in the Google error shape", tc.method, tc.path, resp.StatusCode, body, err)
		}
	}
}

// A request the API refuses is logged with its method, path, status and
// message; a served one is not. Not parallel: the log of the emulated
// APIs is one for the process (googleapi.SetLogger).
func TestComputeRefusedRequestsAreLogged(t *testing.T) {
	e := newEnv(t)
	var (
		mu  sync.Mutex
		buf bytes.Buffer
	)
	prev := googleapi.SetLogger(log.New(lockedWriter{&mu, &buf}, "", 0))
	t.Cleanup(func() { googleapi.SetLogger(prev) })
	policies := "compute/v1/projects/" + inv.Project + "/regions/" + inv.Region + "/resourcePolicies"
	if status, _ := e.post(t, policies, `{"name": "x", "bogus": 1}`); status != http.StatusBadRequest {
		t.Fatalf("policy insert with an unknown field: %d, want 400", status)
	}
	if status, _ := e.get(t, policies); status != http.StatusOK {
		t.Fatalf("policy list: %d, want 200", status)
	}
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	if want := "compute POST /" + policies + `: refused 400: Invalid JSON payload received. Unknown name "bogus"`; !strings.Contains(out, want) {
		t.Errorf("log lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, "GET /"+policies) {
		t.Errorf("a served request was logged as refused:\n%s", out)
	}
}

// lockedWriter writes to w under mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
