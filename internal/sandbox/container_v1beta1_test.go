package sandbox

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
	containerbeta "google.golang.org/api/container/v1beta1"
	"google.golang.org/api/option"
)

// The GKE v1beta1 API is served as v1: the Terraform google provider sends
// some calls there. Its Go client gets the cluster, creates, gets, lists
// and deletes a node pool, and follows the operations, with a v1beta1-only
// field the sandbox ignores.
func TestGKEV1beta1(t *testing.T) {
	needSandbox(t)
	newGKEService(t) // the workload policy
	svc, err := containerbeta.NewService(context.Background(),
		option.WithEndpoint(testSandbox.GoogleURL),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testSandbox.Token})))
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	wait := func(op *containerbeta.Operation) {
		t.Helper()
		name := fmt.Sprintf("projects/%s/locations/%s/operations/%s", testSandbox.Inventory.Project, testSandbox.Inventory.Region, op.Name)
		for {
			got, err := svc.Projects.Locations.Operations.Get(name).Context(ctx).Do()
			if err != nil {
				t.Fatal(err)
			}
			if got.Status == "DONE" {
				if got.Error != nil {
					t.Fatalf("operation %s failed: %s", op.Name, got.Error.Message)
				}
				return
			}
			time.Sleep(25 * time.Millisecond)
		}
	}

	cluster, err := svc.Projects.Locations.Clusters.Get(clusterName()).Context(ctx).Do()
	if err != nil || cluster.Name != testSandbox.Inventory.Cluster || cluster.Status != "RUNNING" {
		t.Fatalf("get cluster: %+v, %v", cluster, err)
	}

	const pool = "np-a4-beta"
	logged := captureLog(t)
	op, err := svc.Projects.Locations.Clusters.NodePools.Create(clusterName(), &containerbeta.CreateNodePoolRequest{NodePool: &containerbeta.NodePool{
		Name:             pool,
		InitialNodeCount: 2,
		Locations:        []string{testSandbox.Inventory.Zone},
		PlacementPolicy:  &containerbeta.PlacementPolicy{PolicyName: gkePolicy},
		Config: &containerbeta.NodeConfig{
			MachineType:           MachineType,
			HostMaintenancePolicy: &containerbeta.HostMaintenancePolicy{MaintenanceInterval: "PERIODIC"}, // v1beta1 only
			ReservationAffinity: &containerbeta.ReservationAffinity{
				ConsumeReservationType: "SPECIFIC_RESERVATION",
				Key:                    "compute.googleapis.com/reservation-name",
				Values:                 []string{reservationPath("tpu7x-reservation", "block-a", "sub-block-a4")},
			},
		},
	}}).Context(ctx).Do()
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { deletePool(t, newGKEService(t), pool) })
	wait(op)
	if l := logged(); !strings.Contains(l, "container v1beta1 nodePools.create") || !strings.Contains(l, "nodePool.config.hostMaintenancePolicy") {
		t.Errorf("the v1beta1 field is not logged as ignored:\n%s", l)
	}

	got, err := svc.Projects.Locations.Clusters.NodePools.Get(clusterName() + "/nodePools/" + pool).Context(ctx).Do()
	if err != nil || got.Status != "RUNNING" || got.InitialNodeCount != 2 || got.PlacementPolicy.PolicyName != gkePolicy {
		t.Fatalf("get pool: %+v, %v", got, err)
	}
	list, err := svc.Projects.Locations.Clusters.NodePools.List(clusterName()).Context(ctx).Do()
	found := false
	for _, p := range list.NodePools {
		found = found || p.Name == pool
	}
	if err != nil || !found {
		t.Fatalf("list pools: %v lacks %s", err, pool)
	}
	op, err = svc.Projects.Locations.Clusters.NodePools.Delete(clusterName() + "/nodePools/" + pool).Context(ctx).Do()
	if err != nil {
		t.Fatalf("delete: %v", err)
	}
	wait(op)
	if n := len(poolNodes(t, pool)); n != 0 {
		t.Errorf("%d nodes left after delete", n)
	}
}
