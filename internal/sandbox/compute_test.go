package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/googleapis/gax-go/v2/apierror"
	"golang.org/x/oauth2"
	"google.golang.org/api/option"
)

// The tests drive the emulated Compute Engine API through the real Go
// clients (cloud.google.com/go/compute/apiv1, REST), as the provider does.

const (
	testReservation = "tpu7x-reservation"
	testRegionLink  = "https://www.googleapis.com/compute/v1/projects/sandbox-project/regions/us-central1"
	testZoneLink    = "https://www.googleapis.com/compute/v1/projects/sandbox-project/zones/us-central1-a"
)

// computeOptions are the client options for the sandbox. The REST clients
// append "/compute/v1/..." to the endpoint, so it must not end with "/".
func computeOptions() []option.ClientOption {
	return []option.ClientOption{
		option.WithEndpoint(strings.TrimSuffix(testSandbox.GoogleURL, "/")),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testSandbox.Token})),
	}
}

// newComputeClient builds one Compute client and closes it after the test.
func newComputeClient[C interface{ Close() error }](t *testing.T, newClient func(context.Context, ...option.ClientOption) (C, error), opts ...option.ClientOption) C {
	t.Helper()
	c, err := newClient(context.Background(), append(computeOptions(), opts...)...)
	if err != nil {
		t.Fatalf("creating a Compute client: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// uniqueName is a policy name no other test uses.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1_000_000_000)
}

// wantAPIError checks that err is a Google API error with the HTTP status
// and a message containing want.
func wantAPIError(t *testing.T, err error, status int, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want HTTP %d with %q", status, want)
	}
	var ae *apierror.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not an API error; want HTTP %d", err, err, status)
	}
	if ae.HTTPCode() != status {
		t.Fatalf("HTTP status %d (%v); want %d", ae.HTTPCode(), err, status)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not contain %q", err.Error(), want)
	}
}

// apiErrorOf checks err as wantAPIError does and returns it as an API error.
func apiErrorOf(t *testing.T, err error, status int, want string) *apierror.APIError {
	t.Helper()
	wantAPIError(t, err, status, want)
	var ae *apierror.APIError
	errors.As(err, &ae)
	return ae
}

func TestComputeRequiresToken(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	c, err := compute.NewReservationsRESTClient(ctx, option.WithEndpoint(strings.TrimSuffix(testSandbox.GoogleURL, "/")), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_, err = c.Get(ctx, &computepb.GetReservationRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone, Reservation: testReservation})
	wantAPIError(t, err, http.StatusUnauthorized, "use the sandbox access token")

	wrong, err := compute.NewReservationsRESTClient(ctx, option.WithEndpoint(strings.TrimSuffix(testSandbox.GoogleURL, "/")),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "not-the-token"})))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = wrong.Close() }()
	_, err = wrong.Get(ctx, &computepb.GetReservationRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone, Reservation: testReservation})
	wantAPIError(t, err, http.StatusUnauthorized, "use the sandbox access token")
}

// The client retries a GET answered 503: with every request failing but
// for the third try in a row (MaxBurst 2), the GET succeeds after exactly
// two 503s and three requests, however long its backoff takes.
func TestComputeInjected503IsRetried(t *testing.T) {
	needSandbox(t)
	c := newComputeClient(t, compute.NewReservationsRESTClient)
	get := &computepb.GetReservationRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone, Reservation: testReservation}
	// Served without a fault, the GET clears any streak of faults an
	// earlier test left on its path: the burst below starts at none.
	if _, err := c.Get(testContext(t), get); err != nil {
		t.Fatal(err)
	}
	withFaults(t, Faults{Compute: APIFaults{Rate503: 1, MaxBurst: 2}})
	before, faultsBefore := testSandbox.RequestCounts()["compute GET reservations"], testSandbox.InjectedFaults()["compute 503"]
	if _, err := c.Get(testContext(t), get); err != nil {
		t.Fatalf("get with two 503s before the answer: %v; want the client to retry them", err)
	}
	n, faults := testSandbox.RequestCounts()["compute GET reservations"]-before, testSandbox.InjectedFaults()["compute 503"]-faultsBefore
	if n != 3 || faults != 2 {
		t.Errorf("%d request(s) reached the API, %d answered 503; want 3 and 2", n, faults)
	}
	var err error

	// Insert is not retried by the client: the 503 surfaces as is.
	p := newComputeClient(t, compute.NewResourcePoliciesRESTClient)
	err = insertPolicy(testContext(t), p, dynamicSlicingPolicy(uniqueName("wp-503")))
	wantAPIError(t, err, http.StatusServiceUnavailable, "The service is currently unavailable (sandbox fault)")
}

func TestComputeInjected429(t *testing.T) {
	needSandbox(t)
	withFaults(t, Faults{Compute: APIFaults{Rate429: 1}})
	c := newComputeClient(t, compute.NewReservationsRESTClient)
	_, err := c.Get(testContext(t), &computepb.GetReservationRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone, Reservation: testReservation})
	wantAPIError(t, err, http.StatusTooManyRequests, "Rate Limit Exceeded (sandbox fault)")
}

func TestComputeUnknownPathIs404(t *testing.T) {
	needSandbox(t)
	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "compute/v1/projects/sandbox-project/global/networks"},
		{http.MethodPut, "compute/v1/projects/sandbox-project/regions/us-central1/resourcePolicies/p"},
		{http.MethodGet, "compute/v1/projects/sandbox-project/aggregated/instances"},
	} {
		req, err := http.NewRequest(tc.method, testSandbox.GoogleURL+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+testSandbox.Token)
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

// The endpoint may be given with its trailing slash: the doubled slash in
// "//compute/v1/..." is accepted, and a POST stays a POST.
func TestComputeEndpointWithTrailingSlash(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	c, err := compute.NewResourcePoliciesRESTClient(ctx,
		option.WithEndpoint(testSandbox.GoogleURL),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testSandbox.Token})))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	name := uniqueName("slash")
	cleanupPolicy(t, name)
	if err := insertPolicy(ctx, c, dynamicSlicingPolicy(name)); err != nil {
		t.Fatalf("insert through %s: %v", testSandbox.GoogleURL, err)
	}
}
