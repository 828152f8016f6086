package computeapi_test

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"
)

func TestComputeWorkloadPolicyLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewResourcePoliciesRESTClient)
	name := "wp-lifecycle"

	op, err := c.Insert(ctx, &computepb.InsertResourcePolicyRequest{
		Project: inv.Project, Region: inv.Region, ResourcePolicyResource: dynamicSlicingPolicy(name),
	})
	if err != nil {
		t.Fatalf("insert: %v", err)
	}
	if got := op.Proto().GetOperationType(); got != "insert" {
		t.Errorf("operationType %q; want insert", got)
	}
	if got, want := op.Proto().GetTargetLink(), testRegionLink+"/resourcePolicies/"+name; got != want {
		t.Errorf("targetLink %q; want %q", got, want)
	}
	if got := op.Proto().GetRegion(); got != testRegionLink {
		t.Errorf("operation region %q; want %q", got, testRegionLink)
	}
	if err := op.Wait(ctx); err != nil {
		t.Fatalf("waiting for the insert: %v", err)
	}
	if !op.Done() || op.Proto().GetProgress() != 100 || op.Proto().GetEndTime() == "" {
		t.Errorf("operation after Wait: status %v, progress %d, endTime %q; want DONE, 100 and an end time",
			op.Proto().GetStatus(), op.Proto().GetProgress(), op.Proto().GetEndTime())
	}

	p, err := getPolicy(ctx, c, name)
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	checks := map[string][2]string{
		"kind":     {p.GetKind(), "compute#resourcePolicy"},
		"name":     {p.GetName(), name},
		"region":   {p.GetRegion(), testRegionLink},
		"selfLink": {p.GetSelfLink(), testRegionLink + "/resourcePolicies/" + name},
		"status":   {p.GetStatus(), "READY"},
		"desc":     {p.GetDescription(), "dynamic slicing"},
		"type":     {p.GetWorkloadPolicy().GetType(), "HIGH_THROUGHPUT"},
		"topology": {p.GetWorkloadPolicy().GetAcceleratorTopology(), "4x4x4"},
		"mode":     {p.GetWorkloadPolicy().GetAcceleratorTopologyMode(), "PROVISION_ONLY"},
	}
	for field, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %q; want %q", field, c[0], c[1])
		}
	}
	if p.WorkloadPolicy.MaxTopologyDistance != nil {
		t.Errorf("maxTopologyDistance = %q; want it absent", p.WorkloadPolicy.GetMaxTopologyDistance())
	}
	if p.GetId() == 0 {
		t.Error("id is 0; want a non-zero ID")
	}
	if _, err := time.Parse(time.RFC3339, p.GetCreationTimestamp()); err != nil {
		t.Errorf("creationTimestamp %q is not RFC 3339: %v", p.GetCreationTimestamp(), err)
	}

	var listed []string
	it := c.List(ctx, &computepb.ListResourcePoliciesRequest{Project: inv.Project, Region: inv.Region})
	for {
		item, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		listed = append(listed, item.GetName())
	}
	if !slices.Contains(listed, name) {
		t.Errorf("list %v does not hold %s", listed, name)
	}

	if err := deletePolicy(ctx, c, name); err != nil {
		t.Fatalf("delete: %v", err)
	}
	_, err = getPolicy(ctx, c, name)
	wantAPIError(t, err, http.StatusNotFound, name)
}

func TestComputeWorkloadPolicyValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewResourcePoliciesRESTClient)
	wp := func(typ, topology, mode, distance string) *computepb.ResourcePolicyWorkloadPolicy {
		p := &computepb.ResourcePolicyWorkloadPolicy{}
		for _, f := range []struct {
			v   string
			dst **string
		}{{typ, &p.Type}, {topology, &p.AcceleratorTopology}, {mode, &p.AcceleratorTopologyMode}, {distance, &p.MaxTopologyDistance}} {
			if f.v != "" {
				*f.dst = proto.String(f.v)
			}
		}
		return p
	}
	tests := []struct {
		name    string
		policy  *computepb.ResourcePolicy
		wantErr string // "" for a valid policy
	}{
		{"dynamic slicing", &computepb.ResourcePolicy{WorkloadPolicy: wp("HIGH_THROUGHPUT", "4x4x4", "PROVISION_ONLY", "")}, ""},
		{"high availability", &computepb.ResourcePolicy{WorkloadPolicy: wp("HIGH_AVAILABILITY", "", "", "")}, ""},
		{"max topology distance", &computepb.ResourcePolicy{WorkloadPolicy: wp("HIGH_THROUGHPUT", "", "", "BLOCK")}, ""},
		{"auto connect by default", &computepb.ResourcePolicy{WorkloadPolicy: wp("HIGH_THROUGHPUT", "2x2x1", "", "")}, ""},
		{"type missing", &computepb.ResourcePolicy{WorkloadPolicy: wp("", "4x4x4", "PROVISION_ONLY", "")},
			"Required field 'resource.workloadPolicy.type' not specified"},
		{"type unknown", &computepb.ResourcePolicy{WorkloadPolicy: wp("LOW_LATENCY", "", "", "")},
			"Invalid value for field 'resource.workloadPolicy.type': 'LOW_LATENCY'. Must be one of HIGH_AVAILABILITY, HIGH_THROUGHPUT"},
		{"topology with high availability", &computepb.ResourcePolicy{WorkloadPolicy: wp("HIGH_AVAILABILITY", "4x4x4", "", "")},
			"'resource.workloadPolicy.acceleratorTopology': '4x4x4'. It can be set only when workloadPolicy.type is HIGH_THROUGHPUT"},
		{"topology with max distance", &computepb.ResourcePolicy{WorkloadPolicy: wp("HIGH_THROUGHPUT", "4x4x4", "", "BLOCK")},
			"'resource.workloadPolicy.maxTopologyDistance': 'BLOCK'. It cannot be set together with workloadPolicy.acceleratorTopology"},
		{"topology not AxBxC", &computepb.ResourcePolicy{WorkloadPolicy: wp("HIGH_THROUGHPUT", "4x4", "PROVISION_ONLY", "")},
			"'resource.workloadPolicy.acceleratorTopology': '4x4'. Must be a chip topology of the form AxBxC"},
		{"mode unknown", &computepb.ResourcePolicy{WorkloadPolicy: wp("HIGH_THROUGHPUT", "4x4x4", "MANUAL", "")},
			"'resource.workloadPolicy.acceleratorTopologyMode': 'MANUAL'. Must be one of AUTO_CONNECT, PROVISION_ONLY"},
		{"provision only without topology", &computepb.ResourcePolicy{WorkloadPolicy: wp("HIGH_THROUGHPUT", "", "PROVISION_ONLY", "")},
			"'resource.workloadPolicy.acceleratorTopologyMode': 'PROVISION_ONLY'. PROVISION_ONLY needs workloadPolicy.acceleratorTopology"},
		{"mode with max distance", &computepb.ResourcePolicy{WorkloadPolicy: wp("HIGH_THROUGHPUT", "", "AUTO_CONNECT", "CLUSTER")},
			"'resource.workloadPolicy.acceleratorTopologyMode': 'AUTO_CONNECT'. It cannot be set together with workloadPolicy.maxTopologyDistance"},
		{"max distance with high availability", &computepb.ResourcePolicy{WorkloadPolicy: wp("HIGH_AVAILABILITY", "", "", "BLOCK")},
			"'resource.workloadPolicy.maxTopologyDistance': 'BLOCK'. It can be set only when workloadPolicy.type is HIGH_THROUGHPUT"},
		{"max distance unknown", &computepb.ResourcePolicy{WorkloadPolicy: wp("HIGH_THROUGHPUT", "", "", "RACK")},
			"'resource.workloadPolicy.maxTopologyDistance': 'RACK'. Must be one of BLOCK, CLUSTER, SUBBLOCK"},
		{"no workload policy", &computepb.ResourcePolicy{},
			"Required field 'resource.workloadPolicy' not specified"},
		{"other policy kind", &computepb.ResourcePolicy{WorkloadPolicy: wp("HIGH_AVAILABILITY", "", "", ""),
			GroupPlacementPolicy: &computepb.ResourcePolicyGroupPlacementPolicy{Collocation: proto.String("COLLOCATED")}},
			"Invalid value for field 'resource.groupPlacementPolicy'"},
		{"name upper case", &computepb.ResourcePolicy{Name: proto.String("Policy"), WorkloadPolicy: wp("HIGH_AVAILABILITY", "", "", "")},
			"Invalid value for field 'resource.name': 'Policy'"},
		{"name ends with hyphen", &computepb.ResourcePolicy{Name: proto.String("policy-"), WorkloadPolicy: wp("HIGH_AVAILABILITY", "", "", "")},
			"Invalid value for field 'resource.name': 'policy-'"},
		{"name too long", &computepb.ResourcePolicy{Name: proto.String("p" + strings.Repeat("a", 63)), WorkloadPolicy: wp("HIGH_AVAILABILITY", "", "", "")},
			"Invalid value for field 'resource.name'"},
		{"name missing", &computepb.ResourcePolicy{Name: proto.String(""), WorkloadPolicy: wp("HIGH_AVAILABILITY", "", "", "")},
			"Required field 'resource.name' not specified"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.policy.Name == nil {
				tt.policy.Name = proto.String(fmt.Sprintf("wp-valid-%d", i))
			}
			err := insertPolicy(ctx, c, tt.policy)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("insert of a valid policy: %v", err)
				}
				got, err := getPolicy(ctx, c, tt.policy.GetName())
				if err != nil {
					t.Fatalf("get: %v", err)
				}
				if !proto.Equal(got.GetWorkloadPolicy(), tt.policy.GetWorkloadPolicy()) {
					t.Errorf("workloadPolicy %v; want %v as inserted", got.GetWorkloadPolicy(), tt.policy.GetWorkloadPolicy())
				}
				return
			}
			wantAPIError(t, err, http.StatusBadRequest, tt.wantErr)
			if tt.policy.GetName() != "" {
				_, err := getPolicy(ctx, c, tt.policy.GetName())
				wantAPIError(t, err, http.StatusNotFound, "was not found")
			}
		})
	}
}

func TestComputeWorkloadPolicyDuplicateIs409(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewResourcePoliciesRESTClient)
	name := "wp-dup"
	if err := insertPolicy(ctx, c, dynamicSlicingPolicy(name)); err != nil {
		t.Fatalf("first insert: %v", err)
	}
	// The conflict is answered at once, not by a failed operation.
	_, err := c.Insert(ctx, &computepb.InsertResourcePolicyRequest{
		Project: inv.Project, Region: inv.Region, ResourcePolicyResource: dynamicSlicingPolicy(name),
	})
	wantAPIError(t, err, http.StatusConflict, "projects/sandbox-project/regions/us-central1/resourcePolicies/"+name+"' already exists")
}

func TestComputeWorkloadPolicyMissingIs404(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewResourcePoliciesRESTClient)
	_, err := getPolicy(ctx, c, "no-such-policy")
	wantAPIError(t, err, http.StatusNotFound, "The resource 'projects/sandbox-project/regions/us-central1/resourcePolicies/no-such-policy' was not found")
	err = deletePolicy(ctx, c, "no-such-policy")
	wantAPIError(t, err, http.StatusNotFound, "no-such-policy")

	_, err = c.Get(ctx, &computepb.GetResourcePolicyRequest{Project: inv.Project, Region: "europe-west4", ResourcePolicy: "p"})
	wantAPIError(t, err, http.StatusNotFound, `the sandbox region is "us-central1"`)
	_, err = c.Get(ctx, &computepb.GetResourcePolicyRequest{Project: "other-project", Region: inv.Region, ResourcePolicy: "p"})
	wantAPIError(t, err, http.StatusNotFound, `the sandbox project is "sandbox-project"`)
}

func TestComputeWorkloadPolicyDeleteInUse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewResourcePoliciesRESTClient)
	name := "wp-in-use"
	if err := insertPolicy(ctx, c, dynamicSlicingPolicy(name)); err != nil {
		t.Fatalf("insert: %v", err)
	}
	w := e.w
	pool := "pool-" + name
	w.Mu.Lock()
	w.NodePools[pool] = &cloud.NodePool{Name: pool, PolicyName: name, Status: "RUNNING"}
	w.Mu.Unlock()

	err := deletePolicy(ctx, c, name)
	ae := apiErrorOf(t, err, http.StatusBadRequest, "is already being used by 'projects/sandbox-project/locations/us-central1/clusters/ironwood/nodePools/"+pool+"'")
	var ge *googleapi.Error
	if !errors.As(ae, &ge) || len(ge.Errors) != 1 || ge.Errors[0].Reason != "resourceInUseByAnotherResource" {
		t.Errorf("error %v does not carry the reason resourceInUseByAnotherResource", err)
	}
	if _, err := getPolicy(ctx, c, name); err != nil {
		t.Fatalf("the policy in use is gone: %v", err)
	}

	w.Mu.Lock()
	delete(w.NodePools, pool)
	w.Mu.Unlock()
	if err := deletePolicy(ctx, c, name); err != nil {
		t.Fatalf("delete once the pool is gone: %v", err)
	}
}

func TestComputeWorkloadPolicyListPagination(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	c := newComputeClient(t, e, compute.NewResourcePoliciesRESTClient)
	prefix := "wp-page"
	var want []string
	for _, suffix := range []string{"c", "a", "b"} {
		name := prefix + "-" + suffix
		if err := insertPolicy(ctx, c, dynamicSlicingPolicy(name)); err != nil {
			t.Fatalf("insert %s: %v", name, err)
		}
		want = append(want, name)
	}
	slices.Sort(want)

	it := c.List(ctx, &computepb.ListResourcePoliciesRequest{Project: inv.Project, Region: inv.Region})
	pager := iterator.NewPager(it, 2, "")
	var all, mine []string
	pages := 0
	for {
		var page []*computepb.ResourcePolicy
		next, err := pager.NextPage(&page)
		if err != nil {
			t.Fatalf("page %d: %v", pages+1, err)
		}
		pages++
		if len(page) > 2 || (next != "" && len(page) != 2) {
			t.Fatalf("page %d has %d items and next token %q; want 2 items on every page but the last", pages, len(page), next)
		}
		for _, p := range page {
			all = append(all, p.GetName())
			if strings.HasPrefix(p.GetName(), prefix) {
				mine = append(mine, p.GetName())
			}
		}
		if next == "" {
			break
		}
	}
	if pages < 2 {
		t.Errorf("%d page(s) for %d policies at 2 a page", pages, len(all))
	}
	if !slices.IsSorted(all) {
		t.Errorf("list is not sorted by name: %v", all)
	}
	if !slices.Equal(mine, want) {
		t.Errorf("listed %v; want %v", mine, want)
	}

	_, err := c.List(ctx, &computepb.ListResourcePoliciesRequest{Project: inv.Project, Region: inv.Region,
		PageToken: proto.String("bogus")}).Next()
	wantAPIError(t, err, http.StatusBadRequest, "Invalid value for field 'pageToken'")
}
