package gkeapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/oauth2"
	container "google.golang.org/api/container/v1"
	gapi "google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/gkeapi"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The tests serve the emulated GKE API (v1 and v1beta1) over a world of
// their own (cloud.World, the default inventory), behind googleapi.Front
// as the sandbox serves it, on an httptest server, and drive it through
// the real Go clients (google.golang.org/api/container/v1 and v1beta1), as
// the provider and the Terraform google provider do. The world registers
// the pools' Nodes with client-go's fake clientset, where a stand-in for
// kwok (fakeKubelet) writes their Ready condition as kwok's stages do. No
// Kubernetes runs. Each test has its own world and server, so every test
// that shares nothing else runs in parallel.

// inv names the project, region, zone and cluster of every test's world
// (each world has its own copy of the default inventory).
var inv = cloud.DefaultInventory()

const (
	testToken = "test-token"
	// gkePolicy is the workload policy every env's world holds, that
	// poolSpec's pools use.
	gkePolicy = "gke-tests-policy"
)

// env is one emulated GKE API: its world, the world's fake clientset, its
// server and the board its world's delays go through.
type env struct {
	w      *cloud.World
	kube   *kubefake.Clientset
	url    string // the server's base URL, with a trailing slash
	delays *delayBoard
}

// newEnv serves the GKE API of a new world of the default inventory, with
// the workload policy gkePolicy, until the test ends.
func newEnv(t *testing.T) *env {
	t.Helper()
	w := cloud.NewWorld(cloud.DefaultInventory(), testToken)
	w.ClusterEndpoint = "127.0.0.1:6443"
	w.ClusterCA = []byte("-----BEGIN CERTIFICATE-----\ntest\n-----END CERTIFICATE-----\n")
	w.PartLogs = "the fake kubelet"
	w.Policies[inv.Region+"/"+gkePolicy] = &cloud.ResourcePolicy{Name: gkePolicy, Region: inv.Region, ID: 1, Created: time.Now(),
		Type: "HIGH_THROUGHPUT", AcceleratorTopology: "4x4x4", AcceleratorTopologyMode: "PROVISION_ONLY"}
	kube := newFakeKube()
	w.Kube = kube
	board := &delayBoard{holds: map[string]*heldDelays{}}
	w.Schedule = board.schedule
	fakeKubelet(t, kube)

	api := gkeapi.New(w).Handler()
	container := func(f *cloud.Faults) *cloud.APIFaults { return &f.Container }
	mux := http.NewServeMux()
	mux.Handle("/v1/", googleapi.Front(w, "container", container, api))
	mux.Handle("/v1beta1/", googleapi.Front(w, "container", container, api))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	t.Cleanup(board.endAll) // before the server closes: a held request ends first
	return &env{w: w, kube: kube, url: srv.URL + "/", delays: board}
}

// newFakeKube is a fake clientset that also deletes collections of Nodes
// (by label selector), as the API server does and the world asks
// (World.DeleteNodes); client-go's object tracker has no reaction for it.
func newFakeKube() *kubefake.Clientset {
	kube := kubefake.NewClientset()
	tracker := kube.Tracker()
	kube.PrependReactor("delete-collection", "nodes", func(a k8stesting.Action) (bool, runtime.Object, error) {
		dc, ok := a.(k8stesting.DeleteCollectionAction)
		if !ok {
			return false, nil, nil
		}
		sel := dc.GetListRestrictions().Labels
		if sel == nil {
			sel = labels.Everything()
		}
		gvr := corev1.SchemeGroupVersion.WithResource("nodes")
		obj, err := tracker.List(gvr, corev1.SchemeGroupVersion.WithKind("Node"), "")
		if err != nil {
			return true, nil, err
		}
		list, ok := obj.(*corev1.NodeList)
		if !ok {
			return true, nil, fmt.Errorf("the tracker listed %T", obj)
		}
		for _, n := range list.Items {
			if sel.Matches(labels.Set(n.Labels)) {
				if err := tracker.Delete(gvr, "", n.Name); err != nil {
					return true, nil, err
				}
			}
		}
		return true, nil, nil
	})
	return kube
}

// fakeKubelet stands in for kwok, the nodes' kubelet, until the test ends:
// it writes each Node's Ready condition as kwok's stages do, False while
// the node carries kwok's not-ready label (cloud.LabelKwokNotReady "true",
// a node of an UNHEALTHY host) and True otherwise. It patches the status
// only, so that it never writes over the labels the world patches.
func fakeKubelet(t *testing.T, kube *kubefake.Clientset) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	nodes := kube.CoreV1().Nodes()
	events, err := nodes.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		cancel()
		events.Stop()
		<-done
	})
	go func() {
		defer close(done)
		for ev := range events.ResultChan() {
			n, ok := ev.Object.(*corev1.Node)
			if !ok || ev.Type == watch.Deleted {
				continue
			}
			want := corev1.ConditionTrue
			if n.Labels[cloud.LabelKwokNotReady] == "true" {
				want = corev1.ConditionFalse
			}
			if readyStatus(n) == want {
				continue
			}
			patch, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: want, Reason: "FakeKubelet", LastHeartbeatTime: metav1.Now(),
			}}}})
			// A node deleted meanwhile is not found: nothing to write.
			_, _ = nodes.Patch(ctx, n.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
		}
	}()
}

func readyStatus(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

// setFaults sets the world's faults (as Sandbox.SetFaults does).
func (e *env) setFaults(f cloud.Faults) {
	e.w.Mu.Lock()
	defer e.w.Mu.Unlock()
	e.w.Faults = f
}

// injected is how many faults the world injected by "api status".
func (e *env) injected(key string) int64 {
	e.w.Mu.Lock()
	defer e.w.Mu.Unlock()
	return e.w.Injected[key]
}

// setHostHealth changes the health of one host of the pool's sub-block,
// as Sandbox.SetHostHealth does: the pool's nodes follow, and have when
// it returns.
func (e *env) setHostHealth(t *testing.T, pool string, host int, health string) {
	t.Helper()
	w := e.w
	w.Mu.Lock()
	p := w.NodePools[pool]
	if p == nil {
		w.Mu.Unlock()
		t.Fatalf("no pool %s", pool)
	}
	p.SubBlock.Hosts[host] = health
	w.Mu.Unlock()
	if err := w.ReconcileNodes(testContext(t), p); err != nil {
		t.Fatal(err)
	}
}

// vanishNode deletes a node as if its VM disappeared, as Sandbox.VanishNode
// does: its host turns UNHEALTHY so the node stays away.
func (e *env) vanishNode(t *testing.T, node corev1.Node) {
	t.Helper()
	w := e.w
	ctx := testContext(t)
	host := hostOf(t, node)
	w.Mu.Lock()
	pool := w.NodePools[node.Labels[wellknown.LabelNodePool]]
	pool.SubBlock.Hosts[host] = cloud.HostUnhealthy
	w.Mu.Unlock()
	pool.ReconcileMu.Lock()
	err := w.Kube.CoreV1().Nodes().Delete(ctx, node.Name, metav1.DeleteOptions{})
	pool.ReconcileMu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.ReconcileNodes(ctx, pool); err != nil {
		t.Fatal(err)
	}
}

func hostOf(t *testing.T, n corev1.Node) int {
	t.Helper()
	var h int
	if _, err := fmt.Sscan(n.Annotations[cloud.AnnotationHostIndex], &h); err != nil {
		t.Fatalf("node %s has no host index: %v", n.Name, err)
	}
	return h
}

// newGKEService is the real GKE client pointed at the env's server.
func newGKEService(t *testing.T, e *env) *container.Service {
	t.Helper()
	svc, err := container.NewService(context.Background(), e.options()...)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func (e *env) options() []option.ClientOption {
	return []option.ClientOption{
		option.WithEndpoint(e.url),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testToken})),
	}
}

func clusterName() string {
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", inv.Project, inv.Region, inv.Cluster)
}

func reservationPath(reservation, block, subBlock string) string {
	p := fmt.Sprintf("projects/%s/reservations/%s/reservationBlocks/%s", inv.Project, reservation, block)
	if subBlock != "" {
		p += "/reservationSubBlocks/" + subBlock
	}
	return p
}

func poolSpec(name, reservation string, nodes int64) *container.NodePool {
	return &container.NodePool{
		Name:             name,
		InitialNodeCount: nodes,
		Locations:        []string{inv.Zone},
		PlacementPolicy:  &container.PlacementPolicy{PolicyName: gkePolicy},
		Config: &container.NodeConfig{
			MachineType: cloud.MachineType,
			ReservationAffinity: &container.ReservationAffinity{
				ConsumeReservationType: "SPECIFIC_RESERVATION",
				Key:                    "compute.googleapis.com/reservation-name",
				Values:                 []string{reservation},
			},
		},
	}
}

// waitGKEOperation reads a GKE operation until it is DONE and returns its
// error. The operation ends in the background (its work runs once its
// delay is over), so each read that finds it running is followed by a
// short pause: how many reads it takes is not asserted.
func waitGKEOperation(ctx context.Context, svc *container.Service, op *container.Operation) error {
	name := fmt.Sprintf("projects/%s/locations/%s/operations/%s", inv.Project, inv.Region, op.Name)
	for {
		got, err := svc.Projects.Locations.Operations.Get(name).Context(ctx).Do()
		if err != nil {
			return err
		}
		if got.Status == "DONE" {
			if got.Error != nil {
				return fmt.Errorf("operation failed: code %d: %s", got.Error.Code, got.Error.Message)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// createPool creates a node pool through the GKE API and waits for it.
func createPool(t *testing.T, svc *container.Service, spec *container.NodePool) error {
	t.Helper()
	ctx := testContext(t)
	op, err := svc.Projects.Locations.Clusters.NodePools.Create(clusterName(), &container.CreateNodePoolRequest{NodePool: spec}).Context(ctx).Do()
	if err != nil {
		return err
	}
	return waitGKEOperation(ctx, svc, op)
}

// deletePool deletes a node pool through the GKE API and waits for it.
func deletePool(t *testing.T, svc *container.Service, name string) {
	t.Helper()
	ctx := testContext(t)
	op, err := svc.Projects.Locations.Clusters.NodePools.Delete(clusterName() + "/nodePools/" + name).Context(ctx).Do()
	if err != nil {
		t.Fatalf("deleting pool %s: %v", name, err)
	}
	if err := waitGKEOperation(ctx, svc, op); err != nil {
		t.Fatalf("deleting pool %s: %v", name, err)
	}
}

// poolNodes are the pool's Nodes, by name.
func (e *env) poolNodes(t *testing.T, pool string) []corev1.Node {
	t.Helper()
	list, err := e.kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: wellknown.LabelNodePool + "=" + pool})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	return list.Items
}

// wantPartitionState checks that the pool has want nodes, each with the
// partition state: the world's writes are done when the operation or the
// host change that made them is, so there is nothing to wait for.
func (e *env) wantPartitionState(t *testing.T, pool string, want int, state string) []corev1.Node {
	t.Helper()
	nodes := e.poolNodes(t, pool)
	states := map[string]int{}
	for _, n := range nodes {
		states[n.Labels[wellknown.LabelPartitionState]]++
	}
	if len(nodes) != want || states[state] != want {
		t.Fatalf("pool %s: %d nodes with states %v; want %d nodes %s", pool, len(nodes), states, want, state)
	}
	return nodes
}

func wantGKEError(t *testing.T, err error, code int, text string) {
	t.Helper()
	var gerr *gapi.Error
	if !errors.As(err, &gerr) || gerr.Code != code || !strings.Contains(gerr.Message, text) {
		t.Fatalf("error = %v; want HTTP %d with %q", err, code, text)
	}
}

// get sends a GET for path (relative to the server) with the token and
// returns the status and the decoded JSON body.
func (e *env) get(t *testing.T, path string) (int, map[string]any) {
	t.Helper()
	return e.send(t, http.MethodGet, path)
}

// send sends a request of method for path (relative to the server), with
// no body, with the token, and returns the status and the decoded JSON
// body: the answer as the wire carries it.
func (e *env) send(t *testing.T, method, path string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), method, e.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("%s %s: %s: not JSON: %v\n%s", method, path, resp.Status, err, b)
	}
	return resp.StatusCode, body
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// waitForOperations waits until no operation of the world runs, as
// Sandbox.WaitForOperations does.
func (e *env) waitForOperations(t *testing.T) {
	t.Helper()
	ctx := testContext(t)
	for {
		e.w.Mu.Lock()
		running := 0
		for _, op := range e.w.Ops {
			if !op.Done {
				running++
			}
		}
		e.w.Mu.Unlock()
		if running == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d operation(s) still running: %v", running, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
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
	if h != nil && (h.of == "" || h.of == d.Of) {
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

// heldDelays are the delays of one kind (and one subject, when of is not
// "") that a test holds until it ends each.
type heldDelays struct {
	kind, of string
	came     chan heldDelay
}

// heldDelay is one held delay, and what waits for its end.
type heldDelay struct {
	cloud.Delay
	then func()
}

// end ends the delay: what waited for it runs in the test's goroutine, and
// has run when end returns.
func (d heldDelay) end() { d.then() }

// hold holds the env's delays of the kind for of (every one of the kind
// when of is "") until the test ends each (next, end); when the test
// ends, those still held are ended.
func (e *env) hold(kind, of string) *heldDelays {
	h := &heldDelays{kind: kind, of: of, came: make(chan heldDelay, 64)}
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

// captureLog sends the emulated APIs' log lines (googleapi.SetLogger, one
// logger for the process) to a buffer for the test; read it with the
// returned function. A test that calls it runs alone, not in parallel.
func captureLog(t *testing.T) func() string {
	t.Helper()
	var (
		mu  sync.Mutex
		buf bytes.Buffer
	)
	prev := googleapi.SetLogger(log.New(lockedWriter{&mu, &buf}, "", 0))
	t.Cleanup(func() { googleapi.SetLogger(prev) })
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		return buf.String()
	}
}

// lockedWriter writes to w under mu.
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
