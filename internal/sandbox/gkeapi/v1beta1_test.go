package gkeapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	containerbeta "google.golang.org/api/container/v1beta1"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

// The GKE v1beta1 API is served as v1: the Terraform google provider sends
// some calls there. Its Go client gets the cluster, creates, gets, lists
// and deletes a node pool, and follows the operations, with a v1beta1-only
// field the sandbox ignores.
//
// Not parallel: it reads the log of the emulated APIs, which is one for
// the process (googleapi.SetLogger).
func TestGKEV1beta1(t *testing.T) {
	e := newEnv(t)
	svc, err := containerbeta.NewService(context.Background(), e.options()...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testContext(t)
	wait := func(op *containerbeta.Operation) {
		t.Helper()
		name := fmt.Sprintf("projects/%s/locations/%s/operations/%s", inv.Project, inv.Region, op.Name)
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
			select { // the operation ends in the background
			case <-ctx.Done():
				t.Fatal(ctx.Err())
			case <-time.After(10 * time.Millisecond):
			}
		}
	}

	cluster, err := svc.Projects.Locations.Clusters.Get(clusterName()).Context(ctx).Do()
	if err != nil || cluster.Name != inv.Cluster || cluster.Status != "RUNNING" {
		t.Fatalf("get cluster: %+v, %v", cluster, err)
	}

	const pool = "np-a4-beta"
	logged := captureLog(t)
	op, err := svc.Projects.Locations.Clusters.NodePools.Create(clusterName(), &containerbeta.CreateNodePoolRequest{NodePool: &containerbeta.NodePool{
		Name:             pool,
		InitialNodeCount: 2,
		Locations:        []string{inv.Zone},
		PlacementPolicy:  &containerbeta.PlacementPolicy{PolicyName: gkePolicy},
		Config: &containerbeta.NodeConfig{
			MachineType:           cloud.MachineType,
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
	if n := len(e.poolNodes(t, pool)); n != 0 {
		t.Errorf("%d nodes left after delete", n)
	}
}
