package computeapi_test

import (
	"context"
	"errors"
	"net/http"
	"path"
	"slices"
	"testing"
	"time"

	"golang.org/x/oauth2"
	computev1 "google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
)

// newComputeService is the Compute client generated from the discovery
// document (google.golang.org/api/compute/v1), which the Terraform google
// provider uses, pointed at the sandbox. Its endpoint is the whole base
// path.
func newComputeService(t *testing.T, e *env) *computev1.Service {
	t.Helper()
	svc, err := computev1.NewService(context.Background(),
		option.WithEndpoint(e.url+"/compute/v1/"),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testToken})))
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// addPool puts a node pool of nodes nodes on the sub-block into the world,
// as the GKE API's create does, and returns the URL of its instance group
// manager (the pool's instanceGroupUrls).
func addPool(e *env, pool, reservation, block, subBlock string, nodes int, status string) string {
	w := e.w
	w.Mu.Lock()
	defer w.Mu.Unlock()
	sub := w.FindSubBlock(reservation, block, subBlock)
	sub.NodePool = pool
	w.NodePools[pool] = &cloud.NodePool{Name: pool, NodeCount: nodes, SubBlock: sub, Status: status,
		MachineType: cloud.MachineType, Created: time.Now()}
	return testZoneLink + "/instanceGroupManagers/" + w.MigName(pool)
}

// A node pool's instanceGroupUrls lead to its instance group manager, which
// the Compute client lists, gets (the google provider reads its targetSize
// for node_count) and lists the instances of: one per node the pool asked
// for, named as the world names the pool's nodes.
func TestComputeInstanceGroupManagers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const pool = "np-c2-migs"
	url := addPool(e, pool, "tpu7x-reservation-2", "block-c", "sub-block-c2", 3, "RUNNING")
	addPool(e, "np-c1-other", "tpu7x-reservation-2", "block-c", "sub-block-c1", 16, "RUNNING")
	newURL := addPool(e, "np-a1-new", "tpu7x-reservation", "block-a", "sub-block-a1", 2, "PROVISIONING")
	name := path.Base(url)
	ctx := testContext(t)
	svc := newComputeService(t, e)

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
	err = svc.InstanceGroupManagers.List(inv.Project, inv.Zone).MaxResults(1).Pages(ctx, func(l *computev1.InstanceGroupManagerList) error {
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
	if !ok || !slices.ContainsFunc(scoped.InstanceGroupManagers, func(m *computev1.InstanceGroupManager) bool { return m.Name == name }) {
		t.Errorf("aggregated list %+v lacks %s", agg.Items, name)
	}

	instances, err := svc.InstanceGroupManagers.ListManagedInstances(inv.Project, inv.Zone, name).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for h := range 3 {
		nodes = append(nodes, e.w.NodeName(pool, h))
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

	// The group of a pool being provisioned is creating its instances.
	creating, err := svc.InstanceGroupManagers.Get(inv.Project, inv.Zone, path.Base(newURL)).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	if creating.Status == nil || creating.Status.IsStable || creating.CurrentActions == nil || creating.CurrentActions.Creating != 2 || creating.CurrentActions.None != 0 {
		t.Errorf("group of a PROVISIONING pool: status %+v, actions %+v; want unstable, creating 2", creating.Status, creating.CurrentActions)
	}
	provisioning, err := svc.InstanceGroupManagers.ListManagedInstances(inv.Project, inv.Zone, path.Base(newURL)).Context(ctx).Do()
	if err != nil {
		t.Fatal(err)
	}
	for _, mi := range provisioning.ManagedInstances {
		if mi.InstanceStatus != "PROVISIONING" || mi.CurrentAction != "CREATING" {
			t.Errorf("managed instance of a PROVISIONING pool: %+v", mi)
		}
	}
	if len(provisioning.ManagedInstances) != 2 {
		t.Errorf("%d managed instances of the 2-node pool", len(provisioning.ManagedInstances))
	}

	_, err = svc.InstanceGroupManagers.Get(inv.Project, inv.Zone, "gke-no-such-grp").Context(ctx).Do()
	if !errors.As(err, &gerr) || gerr.Code != http.StatusNotFound {
		t.Errorf("get of a group no pool has: %v; want a 404", err)
	}
}
