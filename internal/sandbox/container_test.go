package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
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
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// The emulated GKE API's own tests are in package gkeapi, over a world of
// their own on an httptest server, its Nodes in a fake clientset. What is
// left here needs the sandbox's Kubernetes: the cluster's endpoint and CA
// reaching the real API server, and the helpers of the tests that drive
// the sandbox's Kubernetes parts through the APIs.

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
