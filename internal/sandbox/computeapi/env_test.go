package computeapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/googleapis/gax-go/v2/apierror"
	"golang.org/x/oauth2"
	"google.golang.org/api/option"
	"google.golang.org/protobuf/proto"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/computeapi"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// The tests serve the emulated Compute Engine API over a world of their
// own (cloud.World, the default inventory), behind googleapi.Front as the
// sandbox serves it, on an httptest server, and drive it through the real
// Go clients (cloud.google.com/go/compute/apiv1, REST; and the discovery
// client google.golang.org/api/compute/v1), as the provider and the
// Terraform google provider do. No Kubernetes runs: the world's client is
// client-go's fake clientset. Each test has its own world and server, so
// every test runs in parallel.

// inv names the project, region and zone of every test's world (each
// world has its own copy of the default inventory).
var inv = cloud.DefaultInventory()

const (
	testReservation = "tpu7x-reservation"
	testRegionLink  = "https://www.googleapis.com/compute/v1/projects/sandbox-project/regions/us-central1"
	testZoneLink    = "https://www.googleapis.com/compute/v1/projects/sandbox-project/zones/us-central1-a"
	testToken       = "test-token"
)

// env is one emulated Compute Engine API: its world, its server and the
// board its world's delays go through.
type env struct {
	w      *cloud.World
	url    string // the server's base URL, without a trailing slash
	delays *delayBoard
}

// newEnv serves the Compute Engine API of a new world of the default
// inventory until the test ends.
func newEnv(t *testing.T) *env {
	t.Helper()
	w := cloud.NewWorld(cloud.DefaultInventory(), testToken)
	w.Kube = kubefake.NewClientset()
	board := &delayBoard{holds: map[string]*heldDelays{}}
	w.Schedule = board.schedule
	mux := http.NewServeMux()
	mux.Handle("/compute/v1/", googleapi.Front(w, "compute",
		func(f *cloud.Faults) *cloud.APIFaults { return &f.Compute }, computeapi.New(w).Handler()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	e := &env{w: w, url: srv.URL, delays: board}
	t.Cleanup(board.endAll)
	return e
}

// setFaults sets the world's faults (as Sandbox.SetFaults does).
func (e *env) setFaults(f cloud.Faults) {
	e.w.Mu.Lock()
	defer e.w.Mu.Unlock()
	e.w.Faults = f
}

// requests is how many requests the front counted by "api VERB kind".
func (e *env) requests(key string) int64 {
	c, ok := e.w.Requests.Load(key)
	if !ok {
		return 0
	}
	return c.(*atomic.Int64).Load()
}

// injected is how many faults the world injected by "api status".
func (e *env) injected(key string) int64 {
	e.w.Mu.Lock()
	defer e.w.Mu.Unlock()
	return e.w.Injected[key]
}

// maintenanceOf is the maintenance status of a sub-block of the block the
// maintenance tests use (maintReservation, maintBlock): "", PENDING or
// ONGOING.
func (e *env) maintenanceOf(subBlock string) string {
	e.w.Mu.Lock()
	defer e.w.Mu.Unlock()
	if s := e.w.FindSubBlock(maintReservation, maintBlock, subBlock); s != nil {
		return s.Maint.Status
	}
	return ""
}

// options are the Compute client options for the env's server. The REST
// clients append "/compute/v1/..." to the endpoint.
func (e *env) options() []option.ClientOption {
	return []option.ClientOption{
		option.WithEndpoint(e.url),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testToken})),
	}
}

// newComputeClient builds one Compute client of the env and closes it after
// the test.
func newComputeClient[C interface{ Close() error }](t *testing.T, e *env, newClient func(context.Context, ...option.ClientOption) (C, error), opts ...option.ClientOption) C {
	t.Helper()
	c, err := newClient(context.Background(), append(e.options(), opts...)...)
	if err != nil {
		t.Fatalf("creating a Compute client: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// do sends a request for path (relative to the server, kept as written:
// escaped slashes stay escaped) with the token and returns the status and
// the decoded JSON body.
func (e *env) do(t *testing.T, method, path, body string) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(testContext(t), method, e.url+"/"+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s %s: %s: not JSON: %v\n%s", method, path, resp.Status, err, b)
	}
	return resp.StatusCode, out
}

func (e *env) get(t *testing.T, path string) (int, map[string]any) {
	t.Helper()
	return e.do(t, http.MethodGet, path, "")
}

func (e *env) post(t *testing.T, path, body string) (int, map[string]any) {
	t.Helper()
	return e.do(t, http.MethodPost, path, body)
}

// waitComputeOp waits for a Compute operation named in an insert's answer:
// operations.wait waits itself, so the calls follow one another at once.
func (e *env) waitComputeOp(t *testing.T, op map[string]any) {
	t.Helper()
	name, _ := op["name"].(string)
	for range 20 {
		status, got := e.post(t, "compute/v1/projects/"+inv.Project+"/regions/"+inv.Region+"/operations/"+name+"/wait", "")
		if status != http.StatusOK {
			t.Fatalf("wait %s: %d %v", name, status, got)
		}
		if got["status"] == "DONE" {
			if got["error"] != nil {
				t.Fatalf("operation %s failed: %v", name, got["error"])
			}
			return
		}
	}
	t.Fatalf("operation %s is not done after 20 waits", name)
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// dynamicSlicingPolicy is the workload policy dynamic slicing needs.
func dynamicSlicingPolicy(name string) *computepb.ResourcePolicy {
	return &computepb.ResourcePolicy{
		Name:        proto.String(name),
		Description: proto.String("dynamic slicing"),
		WorkloadPolicy: &computepb.ResourcePolicyWorkloadPolicy{
			Type:                    proto.String("HIGH_THROUGHPUT"),
			AcceleratorTopology:     proto.String("4x4x4"),
			AcceleratorTopologyMode: proto.String("PROVISION_ONLY"),
		},
	}
}

func insertPolicy(ctx context.Context, c *compute.ResourcePoliciesClient, p *computepb.ResourcePolicy) error {
	op, err := c.Insert(ctx, &computepb.InsertResourcePolicyRequest{
		Project: inv.Project, Region: inv.Region, ResourcePolicyResource: p,
	})
	if err != nil {
		return err
	}
	return op.Wait(ctx)
}

func getPolicy(ctx context.Context, c *compute.ResourcePoliciesClient, name string) (*computepb.ResourcePolicy, error) {
	return c.Get(ctx, &computepb.GetResourcePolicyRequest{
		Project: inv.Project, Region: inv.Region, ResourcePolicy: name,
	})
}

func deletePolicy(ctx context.Context, c *compute.ResourcePoliciesClient, name string) error {
	op, err := c.Delete(ctx, &computepb.DeleteResourcePolicyRequest{
		Project: inv.Project, Region: inv.Region, ResourcePolicy: name,
	})
	if err != nil {
		return err
	}
	return op.Wait(ctx)
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

// delayBoard runs an env's delays (World.Schedule): at once, in a
// goroutine of their own, unless the test holds their kind (hold); no
// delay waits on a clock.
type delayBoard struct {
	mu    sync.Mutex
	holds map[string]*heldDelays // by kind
}

func (b *delayBoard) schedule(d cloud.Delay, then func()) {
	b.mu.Lock()
	h := b.holds[d.Kind]
	b.mu.Unlock()
	if h != nil {
		select {
		case h.came <- heldDelay{Delay: d, then: then}:
			return
		default: // more than the test can have asked for: not held
		}
	}
	go then()
}

// endAll lifts every hold and ends the delays still held, so that nothing
// of the test waits on for ever.
func (b *delayBoard) endAll() {
	b.mu.Lock()
	holds := b.holds
	b.holds = map[string]*heldDelays{}
	b.mu.Unlock()
	for _, h := range holds {
		for drained := false; !drained; {
			select {
			case d := <-h.came:
				d.end()
			default:
				drained = true
			}
		}
	}
}

// heldDelays are the delays of one kind that a test holds until it ends
// each.
type heldDelays struct {
	kind string
	came chan heldDelay
}

// heldDelay is one held delay, and what waits for its end.
type heldDelay struct {
	cloud.Delay
	then func()
}

// end ends the delay: what waited for it runs in the test's goroutine, and
// has run when end returns.
func (d heldDelay) end() { d.then() }

// hold holds the env's delays of the kind until the test ends each (next,
// end); when the test ends, those still held are ended.
func (e *env) hold(kind string) *heldDelays {
	h := &heldDelays{kind: kind, came: make(chan heldDelay, 64)}
	e.delays.mu.Lock()
	e.delays.holds[kind] = h
	e.delays.mu.Unlock()
	return h
}

// next waits for the next delay the hold takes, and returns it.
func (h *heldDelays) next(t *testing.T) heldDelay {
	t.Helper()
	return testsupport.Await(t, h.came, fmt.Sprintf("a %s delay", h.kind))
}

// none fails the test if the hold has taken a delay that next did not
// return.
func (h *heldDelays) none(t *testing.T) {
	t.Helper()
	select {
	case d := <-h.came:
		t.Errorf("one %s delay more than expected: %+v", h.kind, d.Delay)
		d.end()
	default:
	}
}
