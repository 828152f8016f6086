package clients

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// fakeOperation is a Compute operation that is DONE at its doneAt-th poll.
type fakeOperation struct {
	polls, doneAt int
	failure       string
}

func (o *fakeOperation) Done() bool   { return o.polls >= o.doneAt }
func (o *fakeOperation) Name() string { return "operation-1" }
func (o *fakeOperation) Poll(context.Context, ...gax.CallOption) error {
	o.polls++
	return nil
}

func (o *fakeOperation) Proto() *computepb.Operation {
	p := &computepb.Operation{Name: proto.String(o.Name())}
	if o.Done() && o.failure != "" {
		p.Error = &computepb.Error{Errors: []*computepb.Errors{{Message: proto.String(o.failure)}}}
	}
	return p
}

// computeOp gives the engine's waiter a Compute operation as the client
// library holds it: done or not, its first error's message when it
// failed, and a poll that reads it again.
func TestComputeOp(t *testing.T) {
	t.Parallel()
	var _ kernel.Operation = computeOp{}

	done := computeOp{&fakeOperation{}}
	if s := done.State(); !s.Done || s.Failed || done.Name() != "operation-1" {
		t.Errorf("an operation DONE in the insert's answer: %+v named %q", s, done.Name())
	}
	lib := &fakeOperation{doneAt: 2}
	op := computeOp{lib}
	for i := range 2 {
		if s := op.State(); s.Done {
			t.Fatalf("DONE after %d polls, want 2", i)
		}
		if err := op.Poll(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if s := op.State(); !s.Done || s.Failed || lib.polls != 2 {
		t.Errorf("after 2 polls: %+v after %d polls of the library's operation, want DONE", s, lib.polls)
	}
	failed := computeOp{&fakeOperation{failure: "quota"}}
	if s := failed.State(); !s.Done || !s.Failed || s.Message != "quota" {
		t.Errorf("a failed operation: %+v, want failed with the message quota", s)
	}
}

// The engine's version gate and the Kubernetes endpoint share one
// clusters.get of the provider's cluster, whichever comes first.
func TestOneClustersGetPerProcess(t *testing.T) {
	t.Parallel()
	kube, _ := fakeKubeAPIServer(t)
	gke, calls := fakeGKE(t, "projects/p1/locations/us-central1/clusters/c1", strings.TrimPrefix(kube.URL, "https://"), certPEM(kube))
	endpoint, err := NormalizeEndpoint(gke.URL, "/v1")
	if err != nil {
		t.Fatal(err)
	}
	set, err := New(t.Context(), Config{Project: "p1", Location: "us-central1", Cluster: "c1", AccessToken: testToken, ContainerEndpoint: endpoint}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The engine's version gate reads the cluster through its GKE adapter.
	if _, err := set.GKE().GetCluster(t.Context(), "projects/p1/locations/us-central1/clusters/c1"); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatalf("clusters.get called %d times for the version, want 1", calls.Load())
	}
	if _, err := set.Kubernetes(t.Context()); err != nil {
		t.Fatalf("Kubernetes: %v", err)
	}
	if calls.Load() != 1 {
		t.Errorf("clusters.get called %d times for the version and the endpoint, want 1 (shared)", calls.Load())
	}
}

// GetRegionOperation reads a regional operation by its name
// (regionOperations.get), and each poll reads it again: RUNNING, then
// DONE with its first error's message.
func TestGetRegionOperation(t *testing.T) {
	t.Parallel()
	var reads atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/compute/v1/projects/p/regions/r/operations/operation-7" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		body := `{"kind":"compute#operation","name":"operation-7","operationType":"insert","status":"RUNNING"}`
		if reads.Add(1) > 1 {
			body = `{"kind":"compute#operation","name":"operation-7","operationType":"insert","status":"DONE","error":{"errors":[{"message":"quota"}]}}`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	set, err := New(t.Context(), Config{AccessToken: testToken, ComputeEndpoint: srv.URL + "/"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	op, err := set.Compute().GetRegionOperation(t.Context(), "p", "r", "operation-7")
	if err != nil {
		t.Fatal(err)
	}
	if s := op.State(); s.Done || s.Type != "insert" || s.Status != "RUNNING" || op.Name() != "operation-7" {
		t.Errorf("first read: %+v named %q, want a RUNNING insert named operation-7", s, op.Name())
	}
	if err := op.Poll(t.Context()); err != nil {
		t.Fatal(err)
	}
	if s := op.State(); !s.Done || !s.Failed || s.Message != "quota" || reads.Load() != 2 {
		t.Errorf("after a poll: %+v after %d reads, want DONE, failed with quota, after 2", s, reads.Load())
	}
}
