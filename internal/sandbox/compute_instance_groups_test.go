package sandbox

import (
	"context"
	"errors"
	"net/http"
	"path"
	"slices"
	"testing"

	"golang.org/x/oauth2"
	computeapi "google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// newComputeService is the Compute client generated from the discovery
// document (google.golang.org/api/compute/v1), which the Terraform google
// provider uses, pointed at the sandbox. Its endpoint is the whole base
// path.
func newComputeService(t *testing.T) *computeapi.Service {
	t.Helper()
	svc, err := computeapi.NewService(context.Background(),
		option.WithEndpoint(testSandbox.GoogleURL+"compute/v1/"),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testSandbox.Token})))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// A node pool's instanceGroupUrls lead to its instance group manager, which
// the Compute client lists, gets (the google provider reads its targetSize
// for node_count) and lists the instances of: one per node, named as the
// nodes are.
func TestComputeInstanceGroupManagers(t *testing.T) {
	needSandbox(t)
	gke := newGKEService(t)
	const pool = "np-c2-migs"
	if err := createPool(t, gke, poolSpec(pool, reservationPath("tpu7x-reservation-2", "block-c", "sub-block-c2"), 3)); err != nil {
		t.Fatal(err)
	}
	np, err := gke.Projects.Locations.Clusters.NodePools.Get(clusterName() + "/nodePools/" + pool).Do()
	if err != nil || len(np.InstanceGroupUrls) != 1 {
		t.Fatalf("get pool: %+v, %v", np, err)
	}
	url := np.InstanceGroupUrls[0]
	name := path.Base(url)
	inv := testSandbox.Inventory
	ctx := testContext(t)
	svc := newComputeService(t)

	igm, err := svc.InstanceGroupManagers.Get(inv.Project, inv.Zone, name).Context(ctx).Do()
	if err != nil {
		t.Fatalf("get %s: %v", url, err)
	}
	if igm.SelfLink != url || igm.Kind != "compute#instanceGroupManager" || igm.TargetSize != 3 || igm.Zone != testZoneLink ||
		igm.Status == nil || !igm.Status.IsStable || igm.CurrentActions == nil || igm.CurrentActions.None != 3 || igm.Id == 0 ||
		igm.InstanceTemplate == "" || path.Base(igm.InstanceGroup) != name || igm.BaseInstanceName == "" || igm.CreationTimestamp == "" {
		t.Errorf("instance group manager %+v", igm)
	}

	var listed []string
	err = svc.InstanceGroupManagers.List(inv.Project, inv.Zone).MaxResults(1).Pages(ctx, func(l *computeapi.InstanceGroupManagerList) error {
		for _, m := range l.Items {
			listed = append(listed, m.Name)
		}
		return nil
	})
	if err != nil || !slices.Contains(listed, name) {
		t.Errorf("list (a page a group): %v, %v; want %s among them", listed, err, name)
	}
	for filter, want := range map[string]int{
		`name = "` + name + `"`: 1, "name eq gke-.*-" + pool + "-.*": 1, "(name != " + name + ")": len(listed) - 1, `name = "other"`: 0,
	} {
		l, err := svc.InstanceGroupManagers.List(inv.Project, inv.Zone).Filter(filter).Context(ctx).Do()
		if err != nil || len(l.Items) != want {
			t.Errorf("list with filter %s: %d items, %v; want %d", filter, len(l.Items), err, want)
		}
	}
	_, err = svc.InstanceGroupManagers.List(inv.Project, inv.Zone).Filter("targetSize > 1").Context(ctx).Do()
	var gerr *googleapi.Error
	if !errors.As(err, &gerr) || gerr.Code != http.StatusBadRequest {
		t.Errorf("a filter on another field: %v; want a 400", err)
	}

	agg, err := svc.InstanceGroupManagers.AggregatedList(inv.Project).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	scoped, ok := agg.Items["zones/"+inv.Zone]
	if !ok || !slices.ContainsFunc(scoped.InstanceGroupManagers, func(m *computeapi.InstanceGroupManager) bool { return m.Name == name }) {
		t.Errorf("aggregated list %+v lacks %s", agg.Items, name)
	}

	instances, err := svc.InstanceGroupManagers.ListManagedInstances(inv.Project, inv.Zone, name).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for _, n := range poolNodes(t, pool) {
		nodes = append(nodes, n.Name)
	}
	var got []string
	for _, mi := range instances.ManagedInstances {
		got = append(got, mi.Name)
		if mi.InstanceStatus != "RUNNING" || mi.CurrentAction != "NONE" || path.Base(mi.Instance) != mi.Name || mi.Id == 0 {
			t.Errorf("managed instance %+v", mi)
		}
	}
	slices.Sort(nodes)
	if !slices.Equal(got, nodes) {
		t.Errorf("managed instances %v; want the pool's nodes %v", got, nodes)
	}

	_, err = svc.InstanceGroupManagers.Get(inv.Project, inv.Zone, "gke-no-such-grp").Context(ctx).Do()
	if !errors.As(err, &gerr) || gerr.Code != http.StatusNotFound {
		t.Errorf("get of a group no pool has: %v; want a 404", err)
	}
}
