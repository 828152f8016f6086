package gkeapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// clusters.list serves the one cluster in its region and in every
// location ("-", what `gcloud container clusters list` asks), with the
// node fields gcloud reads: currentNodeVersion (without it
// `gcloud container clusters describe` fails), currentNodeCount and zone.
func TestGKEClusterListAndNodeFields(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	inv := inv
	ctx := testContext(t)

	c, err := svc.Projects.Locations.Clusters.Get(clusterName()).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if c.CurrentNodeVersion == "" || c.CurrentNodeVersion != c.CurrentMasterVersion || c.Zone != inv.Region {
		t.Errorf("cluster without pools: currentNodeVersion %q (master %q), zone %q; want the master's version and zone %s",
			c.CurrentNodeVersion, c.CurrentMasterVersion, c.Zone, inv.Region)
	}

	if err := createPool(t, svc, poolSpec("np-c2-list", reservationPath("tpu7x-reservation-2", "block-c", "sub-block-c2"), 4)); err != nil {
		t.Fatal(err)
	}
	for _, location := range []string{"-", inv.Region} {
		list, err := svc.Projects.Locations.Clusters.List("projects/" + inv.Project + "/locations/" + location).Context(ctx).Do()
		if err != nil {
			t.Fatalf("clusters.list in %s: %v", location, err)
		}
		if len(list.Clusters) != 1 || list.Clusters[0].Name != inv.Cluster {
			t.Fatalf("clusters.list in %s: %d clusters; want %s", location, len(list.Clusters), inv.Cluster)
		}
		got := list.Clusters[0]
		pool := got.NodePools[len(got.NodePools)-1]
		if got.CurrentNodeCount < 4 || got.CurrentNodeVersion != pool.Version || got.Endpoint == "" || got.Status != "RUNNING" {
			t.Errorf("clusters.list in %s: currentNodeCount %d, currentNodeVersion %q (pool %q), endpoint %q, status %s",
				location, got.CurrentNodeCount, got.CurrentNodeVersion, pool.Version, got.Endpoint, got.Status)
		}
	}
	list, err := svc.Projects.Locations.Clusters.List("projects/" + inv.Project + "/locations/europe-west4").Context(ctx).Do()
	if err != nil || len(list.Clusters) != 0 {
		t.Errorf("clusters.list in another region: %v, %v; want no cluster", list, err)
	}
	_, err = svc.Projects.Locations.Clusters.List("projects/other-project/locations/-").Context(ctx).Do()
	wantGKEError(t, err, http.StatusNotFound, "projects/other-project")
}

// operations.list lists the GKE operations, as
// `gcloud container operations list` shows them, oldest first.
func TestGKEOperationsList(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	svc := newGKEService(t, e)
	inv := inv
	ctx := testContext(t)
	if err := createPool(t, svc, poolSpec("np-c1-ops", reservationPath("tpu7x-reservation-2", "block-c", "sub-block-c1"), 2)); err != nil {
		t.Fatal(err)
	}
	target := "https://container.googleapis.com/v1/" + clusterName() + "/nodePools/np-c1-ops"
	for _, location := range []string{"-", inv.Region} {
		list, err := svc.Projects.Locations.Operations.List("projects/" + inv.Project + "/locations/" + location).Context(ctx).Do()
		if err != nil {
			t.Fatalf("operations.list in %s: %v", location, err)
		}
		found := false
		var previous time.Time
		for _, op := range list.Operations {
			started, err := time.Parse(time.RFC3339Nano, op.StartTime)
			if err != nil || started.Before(previous) {
				t.Errorf("operations.list in %s: %s starts at %q (%v), before the one listed ahead of it", location, op.Name, op.StartTime, err)
			}
			previous = started
			if op.TargetLink == target && op.OperationType == "CREATE_NODE_POOL" {
				found = op.Status == "DONE" && op.Zone == inv.Region && strings.HasSuffix(op.SelfLink, "/operations/"+op.Name)
			}
		}
		if !found {
			t.Errorf("operations.list in %s: no DONE CREATE_NODE_POOL operation for np-c1-ops with zone %s among %d", location, inv.Region, len(list.Operations))
		}
	}
	list, err := svc.Projects.Locations.Operations.List("projects/" + inv.Project + "/locations/europe-west4").Context(ctx).Do()
	if err != nil || len(list.Operations) != 0 {
		t.Errorf("operations.list in another region: %v, %v; want none", list, err)
	}
}
