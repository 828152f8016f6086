package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"golang.org/x/oauth2"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

const gkePolicy = "gke-tests-policy"

var gkePolicyOnce sync.Once

// newGKEService is the real GKE client pointed at the sandbox, with a
// workload policy for its node pools.
func newGKEService(t *testing.T) *container.Service {
	t.Helper()
	gkePolicyOnce.Do(func() {
		c := newComputeClient(t, compute.NewResourcePoliciesRESTClient)
		if err := insertPolicy(testContext(t), c, dynamicSlicingPolicy(gkePolicy)); err != nil {
			t.Fatalf("creating the workload policy: %v", err)
		}
	})
	svc, err := container.NewService(context.Background(),
		option.WithEndpoint(testSandbox.GoogleURL),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testSandbox.Token})))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func clusterName() string {
	inv := testSandbox.Inventory
	return fmt.Sprintf("projects/%s/locations/%s/clusters/%s", inv.Project, inv.Region, inv.Cluster)
}

func reservationPath(reservation, block, subBlock string) string {
	p := fmt.Sprintf("projects/%s/reservations/%s/reservationBlocks/%s", testSandbox.Inventory.Project, reservation, block)
	if subBlock != "" {
		p += "/reservationSubBlocks/" + subBlock
	}
	return p
}

func poolSpec(name, reservation string, nodes int64) *container.NodePool {
	return &container.NodePool{
		Name:             name,
		InitialNodeCount: nodes,
		Locations:        []string{testSandbox.Inventory.Zone},
		PlacementPolicy:  &container.PlacementPolicy{PolicyName: gkePolicy},
		Config: &container.NodeConfig{
			MachineType: MachineType,
			ReservationAffinity: &container.ReservationAffinity{
				ConsumeReservationType: "SPECIFIC_RESERVATION",
				Key:                    "compute.googleapis.com/reservation-name",
				Values:                 []string{reservation},
			},
		},
	}
}

// waitGKEOperation polls a GKE operation until DONE and returns its error.
func waitGKEOperation(ctx context.Context, svc *container.Service, op *container.Operation) error {
	name := fmt.Sprintf("projects/%s/locations/%s/operations/%s", testSandbox.Inventory.Project, testSandbox.Inventory.Region, op.Name)
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
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// createPool creates a node pool through the GKE API, waits for it, and
// deletes it (and waits) when the test ends.
func createPool(t *testing.T, svc *container.Service, spec *container.NodePool) error {
	t.Helper()
	ctx := testContext(t)
	op, err := svc.Projects.Locations.Clusters.NodePools.Create(clusterName(), &container.CreateNodePoolRequest{NodePool: spec}).Context(ctx).Do()
	if err != nil {
		return err
	}
	t.Cleanup(func() { deletePool(t, svc, spec.Name) })
	return waitGKEOperation(ctx, svc, op)
}

func deletePool(t *testing.T, svc *container.Service, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	op, err := svc.Projects.Locations.Clusters.NodePools.Delete(clusterName() + "/nodePools/" + name).Context(ctx).Do()
	var gerr *googleapi.Error
	if errors.As(err, &gerr) && gerr.Code == http.StatusNotFound {
		return
	}
	if err != nil {
		t.Errorf("deleting pool %s: %v", name, err)
		return
	}
	if err := waitGKEOperation(ctx, svc, op); err != nil {
		t.Errorf("deleting pool %s: %v", name, err)
	}
}

func poolNodes(t *testing.T, pool string) []corev1.Node {
	t.Helper()
	kube := testKube(t)
	list, err := kube.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{LabelSelector: wellknown.LabelNodePool + "=" + pool})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// waitPartitionState waits, with a watch, until the pool has want nodes
// and every one has the state; it fails the test after 20s.
func waitPartitionState(t *testing.T, pool string, want int, state string) []corev1.Node {
	t.Helper()
	nodes := testKube(t).CoreV1().Nodes()
	lw := listWatch(func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) { return nodes.List(ctx, o) }, nodes.Watch,
		func(o *metav1.ListOptions) { o.LabelSelector = wellknown.LabelNodePool + "=" + pool })
	objs := awaitObjects(t, lw, &corev1.Node{}, 20*time.Second,
		func(objs []any) bool {
			ok := len(objs) == want
			for _, o := range objs {
				ok = ok && o.(*corev1.Node).Labels[wellknown.LabelPartitionState] == state
			}
			return ok
		},
		func(objs []any) string {
			states := map[string]int{}
			for _, o := range objs {
				states[o.(*corev1.Node).Labels[wellknown.LabelPartitionState]]++
			}
			return fmt.Sprintf("pool %s: %d nodes with states %v; want %d nodes %s", pool, len(objs), states, want, state)
		})
	out := make([]corev1.Node, len(objs))
	for i, o := range objs {
		out[i] = *o.(*corev1.Node)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// The cluster reports the sandbox's Kubernetes endpoint and CA, and the
// provider's own client code reaches Kubernetes through it.
func TestGKEClusterGetDerivesKubernetes(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	c, err := svc.Projects.Locations.Clusters.Get(clusterName()).Do()
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != "RUNNING" || c.AddonsConfig == nil || c.AddonsConfig.SliceControllerConfig == nil || !c.AddonsConfig.SliceControllerConfig.Enabled {
		t.Errorf("cluster status %q, slice controller %+v", c.Status, c.AddonsConfig)
	}
	inv := testSandbox.Inventory
	set, err := clients.New(context.Background(), clients.Config{
		Project: inv.Project, Location: inv.Region, Cluster: inv.Cluster,
		AccessToken: testSandbox.Token, ContainerEndpoint: testSandbox.GoogleURL,
	}, clients.Options{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := set.Kubernetes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Dynamic.Resource(SliceGVR).List(context.Background(), metav1.ListOptions{}); err != nil {
		t.Fatalf("listing Slices through the derived Kubernetes access: %v", err)
	}

	_, err = svc.Projects.Locations.Clusters.Get(fmt.Sprintf("projects/%s/locations/%s/clusters/other", inv.Project, inv.Region)).Do()
	var gerr *googleapi.Error
	if !errors.As(err, &gerr) || gerr.Code != http.StatusNotFound {
		t.Errorf("unknown cluster: %v, want 404", err)
	}
}

// Sub-block targeting yields 16 Ready nodes with GKE's labels; delete
// removes them and frees the sub-block.
func TestGKENodePoolSubBlockTargeting(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	spec := poolSpec("np-a1", reservationPath("tpu7x-reservation", "block-a", "sub-block-a1"), 16)
	if err := createPool(t, svc, spec); err != nil {
		t.Fatal(err)
	}
	nodes := waitPartitionState(t, "np-a1", 16, wellknown.PartitionHealthy)
	partition := nodes[0].Labels[wellknown.LabelPartitionID]
	if len(partition) != 32 {
		t.Errorf("partition ID %q is not 32 hex characters", partition)
	}
	for _, n := range nodes {
		for label, want := range map[string]string{
			wellknown.LabelPartitionID: partition, wellknown.LabelNodePool: "np-a1", wellknown.LabelAccelerator: "tpu7x",
			wellknown.LabelTopologyMode: "PROVISION_ONLY", wellknown.LabelInstanceType: MachineType,
		} {
			if n.Labels[label] != want {
				t.Errorf("node %s label %s = %q, want %q", n.Name, label, n.Labels[label], want)
			}
		}
		for _, label := range []string{wellknown.LabelTopologyBlock, wellknown.LabelTopologySubBlock, wellknown.LabelTopologyHost} {
			if n.Labels[label] == "" {
				t.Errorf("node %s has no %s label", n.Name, label)
			}
		}
		if !strings.HasPrefix(n.Annotations[wellknown.AnnotationCreatedByMIG], "projects/735972712744/zones/us-central1-a/") {
			t.Errorf("node %s created-by-mig = %q", n.Name, n.Annotations[wellknown.AnnotationCreatedByMIG])
		}
		if !cloud.NodeReady(&n) {
			t.Errorf("node %s is not Ready", n.Name)
		}
	}
	got, err := svc.Projects.Locations.Clusters.NodePools.Get(clusterName() + "/nodePools/np-a1").Do()
	if err != nil || got.Status != "RUNNING" || got.PlacementPolicy.PolicyName != gkePolicy || got.Config.ReservationAffinity.Values[0] != spec.Config.ReservationAffinity.Values[0] {
		t.Fatalf("get pool: %+v, %v", got, err)
	}
	list, err := svc.Projects.Locations.Clusters.NodePools.List(clusterName()).Do()
	if err != nil || len(list.NodePools) == 0 {
		t.Fatalf("list pools: %v", err)
	}

	// The sub-block is taken while the pool exists.
	err = createPool(t, svc, poolSpec("np-a1-again", spec.Config.ReservationAffinity.Values[0], 16))
	wantGKEError(t, err, http.StatusBadRequest, `reservation sub-block "sub-block-a1" is already used by node pool "np-a1"`)

	deletePool(t, svc, "np-a1")
	if n := len(poolNodes(t, "np-a1")); n != 0 {
		t.Errorf("%d nodes left after delete", n)
	}
	if err := createPool(t, svc, poolSpec("np-a1-again", spec.Config.ReservationAffinity.Values[0], 16)); err != nil {
		t.Fatalf("the freed sub-block cannot be used again: %v", err)
	}
}

func wantGKEError(t *testing.T, err error, code int, text string) {
	t.Helper()
	var gerr *googleapi.Error
	if !errors.As(err, &gerr) || gerr.Code != code || !strings.Contains(gerr.Message, text) {
		t.Fatalf("error = %v; want HTTP %d with %q", err, code, text)
	}
}

// Block targeting takes a free sub-block, a different one for each pool,
// and fails clearly when none is left.
func TestGKENodePoolBlockTargeting(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	block := reservationPath("tpu7x-reservation-2", "block-c", "")
	for _, name := range []string{"np-c-1", "np-c-2"} {
		if err := createPool(t, svc, poolSpec(name, block, 16)); err != nil {
			t.Fatal(err)
		}
	}
	a := waitPartitionState(t, "np-c-1", 16, wellknown.PartitionHealthy)[0].Labels[wellknown.LabelPartitionID]
	b := waitPartitionState(t, "np-c-2", 16, wellknown.PartitionHealthy)[0].Labels[wellknown.LabelPartitionID]
	if a == b {
		t.Fatalf("two pools on one partition %s", a)
	}
	err := createPool(t, svc, poolSpec("np-c-3", block, 16))
	wantGKEError(t, err, http.StatusBadRequest, `reservation block "block-c" of reservation "tpu7x-reservation-2" has no available sub-block: all 2 are in use or unhealthy`)
}

func TestGKENodePoolRejected(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	free := reservationPath("tpu7x-reservation", "block-a", "sub-block-a4")
	cases := map[string]struct {
		spec func() *container.NodePool
		code int
		text string
	}{
		"machine type": {func() *container.NodePool {
			s := poolSpec("np-bad", free, 16)
			s.Config.MachineType = "ct6e-standard-4t"
			return s
		}, 400, `machineType "ct6e-standard-4t"`},
		"missing policy": {func() *container.NodePool {
			s := poolSpec("np-bad", free, 16)
			s.PlacementPolicy.PolicyName = "no-such-policy"
			return s
		}, 400, `workload policy "no-such-policy" was not found`},
		"placement type": {func() *container.NodePool {
			s := poolSpec("np-bad", free, 16)
			s.PlacementPolicy.Type = "COMPACT"
			return s
		}, 400, `placementPolicy.type "COMPACT" cannot be set`},
		"unknown sub-block": {func() *container.NodePool {
			return poolSpec("np-bad", reservationPath("tpu7x-reservation", "block-a", "sub-block-zz"), 16)
		}, 404, `reservation sub-block "sub-block-zz" was not found`},
		"unknown block": {func() *container.NodePool {
			return poolSpec("np-bad", reservationPath("tpu7x-reservation", "block-zz", ""), 16)
		}, 404, `reservation block "block-zz" of reservation "tpu7x-reservation" was not found`},
		"malformed path": {func() *container.NodePool {
			return poolSpec("np-bad", "tpu7x-reservation", 16)
		}, 400, "must be projects/P/reservations/R/reservationBlocks/B"},
		"too many nodes": {func() *container.NodePool {
			return poolSpec("np-bad", free, 17)
		}, 400, "1 to 16 nodes"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			wantGKEError(t, createPool(t, svc, tc.spec()), tc.code, tc.text)
		})
	}
}

// An unhealthy host gives incremental provisioning: 15 nodes and an
// INCOMPLETE partition until the host is repaired.
func TestGKEIncrementalProvisioning(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	if err := createPool(t, svc, poolSpec("np-b3", reservationPath("tpu7x-reservation", "block-b", "sub-block-b3"), 16)); err != nil {
		t.Fatal(err)
	}
	waitPartitionState(t, "np-b3", 15, wellknown.PartitionIncomplete)
	ctx := testContext(t)
	if err := testSandbox.SetHostHealth(ctx, "tpu7x-reservation", "block-b", "sub-block-b3", 11, HostHealthy); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = testSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-b", "sub-block-b3", 11, HostUnhealthy)
	})
	waitPartitionState(t, "np-b3", 16, wellknown.PartitionHealthy)

	// A node vanishing makes the partition INCOMPLETE again.
	vanished := poolNodes(t, "np-b3")[3]
	host, _ := strconv.Atoi(vanished.Annotations[cloud.AnnotationHostIndex])
	if err := testSandbox.VanishNode(ctx, vanished.Name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = testSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-b", "sub-block-b3", host, HostHealthy)
	})
	waitPartitionState(t, "np-b3", 15, wellknown.PartitionIncomplete)
	// Repairing the host brings the node back.
	if err := testSandbox.SetHostHealth(ctx, "tpu7x-reservation", "block-b", "sub-block-b3", host, HostHealthy); err != nil {
		t.Fatal(err)
	}
	waitPartitionState(t, "np-b3", 16, wellknown.PartitionHealthy)
}

// Host health at run time: DEGRADED and UNHEALTHY show on the partition.
func TestGKEPartitionStateFollowsHostHealth(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	if err := createPool(t, svc, poolSpec("np-b2", reservationPath("tpu7x-reservation", "block-b", "sub-block-b2"), 16)); err != nil {
		t.Fatal(err)
	}
	waitPartitionState(t, "np-b2", 16, wellknown.PartitionDegraded)
	ctx := testContext(t)
	if err := testSandbox.SetHostHealth(ctx, "tpu7x-reservation", "block-b", "sub-block-b2", 0, HostUnhealthy); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = testSandbox.SetHostHealth(context.Background(), "tpu7x-reservation", "block-b", "sub-block-b2", 0, HostHealthy)
	})
	nodes := waitPartitionState(t, "np-b2", 16, wellknown.PartitionUnhealthy)
	notReady := 0
	for _, n := range nodes {
		if !cloud.NodeReady(&n) {
			notReady++
		}
	}
	if notReady != 1 {
		t.Errorf("%d nodes NotReady, want the one on the unhealthy host", notReady)
	}
}

// Fewer than 16 nodes leave the partition UNSET.
func TestGKESmallPoolIsUnset(t *testing.T) {
	needSandbox(t)
	svc := newGKEService(t)
	if err := createPool(t, svc, poolSpec("np-b4-small", reservationPath("tpu7x-reservation", "block-b", "sub-block-b4"), 4)); err != nil {
		t.Fatal(err)
	}
	waitPartitionState(t, "np-b4-small", 4, wellknown.PartitionUnset)
}
