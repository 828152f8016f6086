package clients

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"cloud.google.com/go/compute/apiv1/computepb"
	container "google.golang.org/api/container/v1"
	"google.golang.org/protobuf/proto"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/computeapi"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/gkeapi"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// recordedAnswer is one answer the emulated APIs gave.
type recordedAnswer struct {
	method, path string
	status       int
	header       http.Header
	body         []byte
}

// answerLog records every answer of the handler it wraps.
type answerLog struct {
	mu      sync.Mutex
	answers []recordedAnswer
}

func (l *answerLog) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		l.mu.Lock()
		l.answers = append(l.answers, recordedAnswer{r.Method, r.URL.Path, rec.Code, rec.Header().Clone(), rec.Body.Bytes()})
		l.mu.Unlock()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// emulatedGoogle serves the sandbox's emulated Compute and GKE APIs over a
// world of the default inventory (no Kubernetes: client-go's fake), whose
// delays run when the test says (run), and returns the set of clients of
// them.
func emulatedGoogle(t *testing.T) (set *Set, inv *cloud.Inventory, log *answerLog, run func()) {
	t.Helper()
	inv = cloud.DefaultInventory()
	w := cloud.NewWorld(inv, testToken)
	w.Kube = kubefake.NewClientset()
	w.ClusterEndpoint = "127.0.0.1:6443"
	w.ClusterCA = []byte("-----BEGIN CERTIFICATE-----\ntest\n-----END CERTIFICATE-----\n")
	// Every operation waits on a delay, which the test runs (run): none
	// ends in the background.
	w.Faults.OperationDelayMs = 1
	var mu sync.Mutex
	var pending []func()
	w.Schedule = func(_ cloud.Delay, then func()) { mu.Lock(); pending = append(pending, then); mu.Unlock() }
	run = func() {
		mu.Lock()
		due := pending
		pending = nil
		mu.Unlock()
		for _, then := range due {
			then()
		}
	}
	log = &answerLog{}
	mux := http.NewServeMux()
	mux.Handle("/compute/v1/", googleapi.Front(w, "compute", func(f *cloud.Faults) *cloud.APIFaults { return &f.Compute }, computeapi.New(w).Handler()))
	mux.Handle("/v1/", googleapi.Front(w, "container", func(f *cloud.Faults) *cloud.APIFaults { return &f.Container }, gkeapi.New(w).Handler()))
	srv := httptest.NewServer(log.wrap(mux))
	t.Cleanup(srv.Close)
	set, err := New(t.Context(), Config{Project: inv.Project, Location: inv.Region, Cluster: inv.Cluster, AccessToken: testToken,
		ComputeEndpoint: srv.URL + "/", ContainerEndpoint: srv.URL + "/"}, Options{RetryBudget: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return set, inv, log, run
}

// doneCompute runs the world's delays and polls op until it is done.
func doneCompute(ctx context.Context, op kernel.Operation, run func()) error {
	for range 3 {
		run()
		if err := op.Poll(ctx); err != nil {
			return err
		}
		if s := op.State(); s.Done {
			if s.Failed {
				return fmt.Errorf("operation %s failed: %s", op.Name(), s.Message)
			}
			return nil
		}
	}
	return fmt.Errorf("operation %s not done after its delays ran: %+v", op.Name(), op.State())
}

// doneGKE runs the world's delays and reads op until it is done.
func doneGKE(ctx context.Context, gke kernel.GKE, inv *cloud.Inventory, op *container.Operation, run func()) error {
	name := fmt.Sprintf("projects/%s/locations/%s/operations/%s", inv.Project, inv.Region, op.Name)
	for range 3 {
		run()
		got, err := gke.GetOperation(ctx, name)
		if err != nil {
			return err
		}
		if got.Status == "DONE" {
			if got.Error != nil {
				return fmt.Errorf("operation %s failed: %s", op.Name, got.Error.Message)
			}
			return nil
		}
	}
	return fmt.Errorf("operation %s not done after its delays ran", op.Name)
}

// Every answer the emulated APIs (written from Google's documents) give
// to the requests the provider sends passes the check of its shape: the
// check names the message of each, and finds each of it. What the
// provider sends is driven through the set's adapters, as the engine
// calls them.
func TestSandboxAnswersAreOfTheirShape(t *testing.T) {
	t.Parallel()
	set, inv, log, run := emulatedGoogle(t)
	ctx := t.Context()
	compute, gke := set.Compute(), set.GKE()
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	const policy = "shape-policy"
	op, err := compute.InsertResourcePolicy(ctx, inv.Project, inv.Region, &computepb.ResourcePolicy{Name: proto.String(policy),
		WorkloadPolicy: &computepb.ResourcePolicyWorkloadPolicy{Type: proto.String("HIGH_THROUGHPUT"), AcceleratorTopology: proto.String("4x4x4"),
			AcceleratorTopologyMode: proto.String("PROVISION_ONLY")}})
	must("insert policy", err)
	must("insert policy operation", doneCompute(ctx, op, run))
	_, err = compute.GetResourcePolicy(ctx, inv.Project, inv.Region, policy)
	must("get policy", err)
	_, err = computeAdapter{set}.ListResourcePolicies(ctx, inv.Project, inv.Region)
	must("list policies", err)

	res := inv.Reservations[0]
	block, subBlock := res.Blocks[0].Name, res.Blocks[0].SubBlocks[0].Name
	_, err = compute.GetReservation(ctx, inv.Project, inv.Zone, res.Name)
	must("get reservation", err)
	_, err = computeAdapter{set}.ListReservationBlocks(ctx, inv.Project, inv.Zone, res.Name)
	must("list blocks", err)
	_, err = compute.GetReservationBlock(ctx, inv.Project, inv.Zone, res.Name, block)
	must("get block", err)
	_, err = compute.ListReservationSubBlocks(ctx, inv.Project, inv.Zone, res.Name, block)
	must("list sub-blocks", err)
	_, err = compute.GetReservationSubBlock(ctx, inv.Project, inv.Zone, res.Name, block, subBlock)
	must("get sub-block", err)
	_, err = computeAdapter{set}.ListReservationSlots(ctx, inv.Project, inv.Zone, res.Name, block, subBlock)
	must("list slots", err)

	cluster := fmt.Sprintf("projects/%s/locations/%s/clusters/%s", inv.Project, inv.Region, inv.Cluster)
	_, err = gke.GetCluster(ctx, cluster)
	must("get cluster", err)
	// A pool of queued provisioning: its nodes come later, from
	// ProvisioningRequests, so that no kubelet need make them Ready.
	pool := &container.NodePool{Name: "shape-pool", Locations: []string{inv.Zone},
		QueuedProvisioning: &container.QueuedProvisioning{Enabled: true}, Autoscaling: &container.NodePoolAutoscaling{Enabled: true, MaxNodeCount: 4},
		Config: &container.NodeConfig{MachineType: cloud.MachineType, FlexStart: true,
			ReservationAffinity: &container.ReservationAffinity{ConsumeReservationType: "NO_RESERVATION"}}}
	gop, err := gke.CreateNodePool(ctx, cluster, pool)
	must("create pool", err)
	must("create pool operation", doneGKE(ctx, gke, inv, gop, run))
	_, err = gke.GetNodePool(ctx, cluster+"/nodePools/shape-pool")
	must("get pool", err)
	_, err = gke.ListNodePools(ctx, cluster)
	must("list pools", err)
	gop, err = gke.SetNodePoolManagement(ctx, cluster+"/nodePools/shape-pool", &container.SetNodePoolManagementRequest{
		Management: &container.NodeManagement{AutoRepair: true}})
	must("set pool management", err)
	must("set pool management operation", doneGKE(ctx, gke, inv, gop, run))
	gop, err = gke.DeleteNodePool(ctx, cluster+"/nodePools/shape-pool")
	must("delete pool", err)
	must("delete pool operation", doneGKE(ctx, gke, inv, gop, run))
	op, err = compute.DeleteResourcePolicy(ctx, inv.Project, inv.Region, policy)
	must("delete policy", err)
	must("delete policy operation", doneCompute(ctx, op, run))

	log.mu.Lock()
	defer log.mu.Unlock()
	kinds := map[string]bool{}
	for _, a := range log.answers {
		api, _ := googleAPI(a.path)
		shape := googleAnswerShape(api, a.method, a.path)
		if shape == nil {
			t.Errorf("%s %s: no shape named for the answer", a.method, a.path)
			continue
		}
		kinds[shape.what] = true
		req := httptest.NewRequest(a.method, "http://sandbox"+a.path, nil)
		if _, bad := CheckGoogleAnswer(req, &http.Response{StatusCode: a.status, Header: a.header, Body: io.NopCloser(bytes.NewReader(a.body))}); bad != nil {
			t.Errorf("%s %s: the sandbox's answer refused: %v", a.method, a.path, bad)
		}
	}
	t.Logf("%d answers of %d kinds checked: %s", len(log.answers), len(kinds), strings.Join(sortedKeys(kinds), "; "))
	if len(kinds) < 12 {
		t.Errorf("answers of %d kinds checked, want every kind the test asked for", len(kinds))
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
