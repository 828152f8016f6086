package sandbox

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// A failing create operation carries its error and leaves the pool in
// ERROR, which can be deleted.
func TestGKEFailingOperation(t *testing.T) {
	needSandbox(t)
	withFaults(t, Faults{FailOperations: map[string]int{"CREATE_NODE_POOL": 1}, OperationDelayMs: 50})
	svc := newGKEService(t)
	err := createPool(t, svc, poolSpec("np-fail", reservationPath("tpu7x-reservation", "block-a", "sub-block-a3"), 16))
	if err == nil || !strings.Contains(err.Error(), "injected failure of a CREATE_NODE_POOL operation") {
		t.Fatalf("create = %v, want the injected failure", err)
	}
	got, err := svc.Projects.Locations.Clusters.NodePools.Get(clusterName() + "/nodePools/np-fail").Do()
	if err != nil || got.Status != "ERROR" {
		t.Fatalf("pool after failed create: %+v, %v; want status ERROR", got, err)
	}
}

// Injected 503s and latency reach the client.
func TestGKEInjectedFaults(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	withFaults(t, Faults{Container: APIFaults{Rate503: 1}})
	_, err := svc.Projects.Locations.Clusters.Get(clusterName()).Do()
	wantGKEError(t, err, http.StatusServiceUnavailable, "sandbox fault")

	withFaults(t, Faults{Container: APIFaults{Rate429: 1}})
	_, err = svc.Projects.Locations.Clusters.Get(clusterName()).Do()
	wantGKEError(t, err, http.StatusTooManyRequests, "Rate Limit Exceeded")

	withFaults(t, Faults{Container: APIFaults{LatencyMs: 300}})
	start := time.Now()
	if _, err := svc.Projects.Locations.Clusters.Get(clusterName()).Do(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("request took %v with 300ms of injected latency", d)
	}
}

// MaxBurst caps the faults one request gets in a row: with every request
// failing, each third try of the same request is served, and the counts
// of injected faults say what was answered.
func TestGKEInjectedFaultsMaxBurst(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	before := testSandbox.InjectedFaults()["container 503"]
	withFaults(t, Faults{Container: APIFaults{Rate503: 1, MaxBurst: 2}})
	for i := range 3 {
		_, err := svc.Projects.Locations.Clusters.Get(clusterName()).Do()
		wantGKEError(t, err, http.StatusServiceUnavailable, "sandbox fault")
		_, err = svc.Projects.Locations.Clusters.Get(clusterName()).Do()
		wantGKEError(t, err, http.StatusServiceUnavailable, "sandbox fault")
		if _, err := svc.Projects.Locations.Clusters.Get(clusterName()).Do(); err != nil {
			t.Fatalf("round %d: the try after 2 faults in a row: %v; want it served", i, err)
		}
	}
	if n := testSandbox.InjectedFaults()["container 503"] - before; n != 6 {
		t.Errorf("%d 503s counted; want 6", n)
	}
}
