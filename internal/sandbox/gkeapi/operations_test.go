package gkeapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

// A failing create operation carries its error and leaves the pool in
// ERROR, which can be deleted.
func TestGKEFailingOperation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.setFaults(cloud.Faults{FailOperations: map[string]int{"CREATE_NODE_POOL": 1}, OperationDelayMs: 50})
	svc := newGKEService(t, e)
	err := createPool(t, svc, poolSpec("np-fail", reservationPath("tpu7x-reservation", "block-a", "sub-block-a3"), 16))
	if err == nil || !strings.Contains(err.Error(), "injected failure of a CREATE_NODE_POOL operation") {
		t.Fatalf("create = %v, want the injected failure", err)
	}
	got, err := svc.Projects.Locations.Clusters.NodePools.Get(clusterName() + "/nodePools/np-fail").Do()
	if err != nil || got.Status != "ERROR" {
		t.Fatalf("pool after failed create: %+v, %v; want status ERROR", got, err)
	}
}

// Injected 503s and latency reach the client. The latency is a delay the
// test holds (Options.Delays): the request is not answered while it is
// held, and is once it ends.
func TestGKEInjectedFaults(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	e.setFaults(cloud.Faults{Container: cloud.APIFaults{Rate503: 1}})
	_, err := svc.Projects.Locations.Clusters.Get(clusterName()).Do()
	wantGKEError(t, err, http.StatusServiceUnavailable, "sandbox fault")

	e.setFaults(cloud.Faults{Container: cloud.APIFaults{Rate429: 1}})
	_, err = svc.Projects.Locations.Clusters.Get(clusterName()).Do()
	wantGKEError(t, err, http.StatusTooManyRequests, "Rate Limit Exceeded")

	e.setFaults(cloud.Faults{Container: cloud.APIFaults{LatencyMs: 300}})
	latency := e.hold(cloud.DelayLatency, "")
	answered := make(chan error, 1)
	go func() {
		_, err := svc.Projects.Locations.Clusters.Get(clusterName()).Do()
		answered <- err
	}()
	d := latency.next(t)
	if d.For != 300*time.Millisecond || !strings.HasPrefix(d.Of, "container GET ") || !strings.HasSuffix(d.Of, clusterName()) {
		t.Errorf("the latency held %q for %s, want the cluster's GET for the fault's 300ms", d.Of, d.For)
	}
	select {
	case err := <-answered:
		t.Fatalf("the request was answered (%v) while its latency was held", err)
	default:
	}
	d.end()
	if err := testsupport.Await(t, answered, "the request's answer once its latency ended"); err != nil {
		t.Fatal(err)
	}
	latency.none(t)
}

// MaxBurst caps the faults one request gets in a row: with every request
// failing, each third try of the same request is served, and the counts
// of injected faults say what was answered.
func TestGKEInjectedFaultsMaxBurst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	before := e.injected("container 503")
	e.setFaults(cloud.Faults{Container: cloud.APIFaults{Rate503: 1, MaxBurst: 2}})
	for i := range 3 {
		_, err := svc.Projects.Locations.Clusters.Get(clusterName()).Do()
		wantGKEError(t, err, http.StatusServiceUnavailable, "sandbox fault")
		_, err = svc.Projects.Locations.Clusters.Get(clusterName()).Do()
		wantGKEError(t, err, http.StatusServiceUnavailable, "sandbox fault")
		if _, err := svc.Projects.Locations.Clusters.Get(clusterName()).Do(); err != nil {
			t.Fatalf("round %d: the try after 2 faults in a row: %v; want it served", i, err)
		}
	}
	if n := e.injected("container 503") - before; n != 6 {
		t.Errorf("%d 503s counted; want 6", n)
	}
}
