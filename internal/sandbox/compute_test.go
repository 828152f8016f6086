package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/googleapis/gax-go/v2/apierror"
	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
	"google.golang.org/protobuf/proto"
)

// The tests drive the emulated Compute Engine API through the real Go
// clients (cloud.google.com/go/compute/apiv1, REST), as the provider does.

const (
	testReservation = "tpu7x-reservation"
	testRegionLink  = "https://www.googleapis.com/compute/v1/projects/sandbox-project/regions/us-central1"
	testZoneLink    = "https://www.googleapis.com/compute/v1/projects/sandbox-project/zones/us-central1-a"
)

// computeOptions are the client options for the sandbox. The REST clients
// append "/compute/v1/..." to the endpoint, so it must not end with "/".
func computeOptions() []option.ClientOption {
	return []option.ClientOption{
		option.WithEndpoint(strings.TrimSuffix(testSandbox.GoogleURL, "/")),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testSandbox.Token})),
	}
}

// newComputeClient builds one Compute client and closes it after the test.
func newComputeClient[C interface{ Close() error }](t *testing.T, newClient func(context.Context, ...option.ClientOption) (C, error), opts ...option.ClientOption) C {
	t.Helper()
	c, err := newClient(context.Background(), append(computeOptions(), opts...)...)
	if err != nil {
		t.Fatalf("creating a Compute client: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// uniqueName is a policy name no other test uses.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1_000_000_000)
}

// wantAPIError checks that err is a Google API error with the HTTP status
// and a message containing want.
func wantAPIError(t *testing.T, err error, status int, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want HTTP %d with %q", status, want)
	}
	var ae *apierror.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v (%T) is not an API error; want HTTP %d", err, err, status)
	}
	if ae.HTTPCode() != status {
		t.Fatalf("HTTP status %d (%v); want %d", ae.HTTPCode(), err, status)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not contain %q", err.Error(), want)
	}
}

// apiErrorOf checks err as wantAPIError does and returns it as an API error.
func apiErrorOf(t *testing.T, err error, status int, want string) *apierror.APIError {
	t.Helper()
	wantAPIError(t, err, status, want)
	var ae *apierror.APIError
	errors.As(err, &ae)
	return ae
}

// dynamicSlicingPolicy is the workload policy dynamic slicing needs.
func dynamicSlicingPolicy(name string) *computepb.ResourcePolicy {
	return &computepb.ResourcePolicy{
		Name:        proto.String(name),
		Description: proto.String("dynamic slicing"),
		WorkloadPolicy: &computepb.ResourcePolicyWorkloadPolicy{
			Type:                    proto.String("HIGH_THROUGHPUT"),
			AcceleratorTopology:     proto.String("4x4x4"),
			AcceleratorTopologyMode: proto.String("PROVISION_ONLY"),
		},
	}
}

func insertPolicy(ctx context.Context, c *compute.ResourcePoliciesClient, p *computepb.ResourcePolicy) error {
	op, err := c.Insert(ctx, &computepb.InsertResourcePolicyRequest{
		Project: testSandbox.Inventory.Project, Region: testSandbox.Inventory.Region, ResourcePolicyResource: p,
	})
	if err != nil {
		return err
	}
	return op.Wait(ctx)
}

func getPolicy(ctx context.Context, c *compute.ResourcePoliciesClient, name string) (*computepb.ResourcePolicy, error) {
	return c.Get(ctx, &computepb.GetResourcePolicyRequest{
		Project: testSandbox.Inventory.Project, Region: testSandbox.Inventory.Region, ResourcePolicy: name,
	})
}

func deletePolicy(ctx context.Context, c *compute.ResourcePoliciesClient, name string) error {
	op, err := c.Delete(ctx, &computepb.DeleteResourcePolicyRequest{
		Project: testSandbox.Inventory.Project, Region: testSandbox.Inventory.Region, ResourcePolicy: name,
	})
	if err != nil {
		return err
	}
	return op.Wait(ctx)
}

// cleanupPolicy removes a policy after the test, whatever became of it.
func cleanupPolicy(t *testing.T, name string) {
	t.Cleanup(func() {
		testSandbox.world.mu.Lock()
		delete(testSandbox.world.policies, testSandbox.Inventory.Region+"/"+name)
		testSandbox.world.mu.Unlock()
	})
}

func TestComputeWorkloadPolicyLifecycle(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewResourcePoliciesRESTClient)
	name := uniqueName("wp-lifecycle")
	cleanupPolicy(t, name)

	op, err := c.Insert(ctx, &computepb.InsertResourcePolicyRequest{
		Project: testSandbox.Inventory.Project, Region: testSandbox.Inventory.Region, ResourcePolicyResource: dynamicSlicingPolicy(name),
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
	it := c.List(ctx, &computepb.ListResourcePoliciesRequest{Project: testSandbox.Inventory.Project, Region: testSandbox.Inventory.Region})
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
	needSandbox(t)
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewResourcePoliciesRESTClient)
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
				tt.policy.Name = proto.String(fmt.Sprintf("%s-%d", uniqueName("wp-valid"), i))
			}
			cleanupPolicy(t, tt.policy.GetName())
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
	needSandbox(t)
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewResourcePoliciesRESTClient)
	name := uniqueName("wp-dup")
	cleanupPolicy(t, name)
	if err := insertPolicy(ctx, c, dynamicSlicingPolicy(name)); err != nil {
		t.Fatalf("first insert: %v", err)
	}
	// The conflict is answered at once, not by a failed operation.
	_, err := c.Insert(ctx, &computepb.InsertResourcePolicyRequest{
		Project: testSandbox.Inventory.Project, Region: testSandbox.Inventory.Region, ResourcePolicyResource: dynamicSlicingPolicy(name),
	})
	wantAPIError(t, err, http.StatusConflict, "projects/sandbox-project/regions/us-central1/resourcePolicies/"+name+"' already exists")
}

func TestComputeWorkloadPolicyMissingIs404(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewResourcePoliciesRESTClient)
	_, err := getPolicy(ctx, c, "no-such-policy")
	wantAPIError(t, err, http.StatusNotFound, "The resource 'projects/sandbox-project/regions/us-central1/resourcePolicies/no-such-policy' was not found")
	err = deletePolicy(ctx, c, "no-such-policy")
	wantAPIError(t, err, http.StatusNotFound, "no-such-policy")

	_, err = c.Get(ctx, &computepb.GetResourcePolicyRequest{Project: testSandbox.Inventory.Project, Region: "europe-west4", ResourcePolicy: "p"})
	wantAPIError(t, err, http.StatusNotFound, `the sandbox region is "us-central1"`)
	_, err = c.Get(ctx, &computepb.GetResourcePolicyRequest{Project: "other-project", Region: testSandbox.Inventory.Region, ResourcePolicy: "p"})
	wantAPIError(t, err, http.StatusNotFound, `the sandbox project is "sandbox-project"`)
}

func TestComputeWorkloadPolicyDeleteInUse(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewResourcePoliciesRESTClient)
	name := uniqueName("wp-in-use")
	cleanupPolicy(t, name)
	if err := insertPolicy(ctx, c, dynamicSlicingPolicy(name)); err != nil {
		t.Fatalf("insert: %v", err)
	}
	w := testSandbox.world
	pool := "pool-" + name
	w.mu.Lock()
	w.nodePools[pool] = &nodePool{Name: pool, PolicyName: name, Status: "RUNNING"}
	w.mu.Unlock()
	t.Cleanup(func() {
		w.mu.Lock()
		delete(w.nodePools, pool)
		w.mu.Unlock()
	})

	err := deletePolicy(ctx, c, name)
	ae := apiErrorOf(t, err, http.StatusBadRequest, "is already being used by 'projects/sandbox-project/locations/us-central1/clusters/ironwood/nodePools/"+pool+"'")
	var ge *googleapi.Error
	if !errors.As(ae, &ge) || len(ge.Errors) != 1 || ge.Errors[0].Reason != "resourceInUseByAnotherResource" {
		t.Errorf("error %v does not carry the reason resourceInUseByAnotherResource", err)
	}
	if _, err := getPolicy(ctx, c, name); err != nil {
		t.Fatalf("the policy in use is gone: %v", err)
	}

	w.mu.Lock()
	delete(w.nodePools, pool)
	w.mu.Unlock()
	if err := deletePolicy(ctx, c, name); err != nil {
		t.Fatalf("delete once the pool is gone: %v", err)
	}
}

func TestComputeWorkloadPolicyListPagination(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewResourcePoliciesRESTClient)
	prefix := uniqueName("wp-page")
	var want []string
	for _, suffix := range []string{"c", "a", "b"} {
		name := prefix + "-" + suffix
		cleanupPolicy(t, name)
		if err := insertPolicy(ctx, c, dynamicSlicingPolicy(name)); err != nil {
			t.Fatalf("insert %s: %v", name, err)
		}
		want = append(want, name)
	}
	slices.Sort(want)

	it := c.List(ctx, &computepb.ListResourcePoliciesRequest{Project: testSandbox.Inventory.Project, Region: testSandbox.Inventory.Region})
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

	_, err := c.List(ctx, &computepb.ListResourcePoliciesRequest{Project: testSandbox.Inventory.Project, Region: testSandbox.Inventory.Region,
		PageToken: proto.String("bogus")}).Next()
	wantAPIError(t, err, http.StatusBadRequest, "Invalid value for field 'pageToken'")
}

func TestComputeOperationGetAndWait(t *testing.T) {
	needSandbox(t)
	withFaults(t, Faults{OperationDelayMs: 400})
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewResourcePoliciesRESTClient)
	ops := newComputeClient(t, compute.NewRegionOperationsRESTClient)
	zoneOps := newComputeClient(t, compute.NewZoneOperationsRESTClient)
	name := uniqueName("wp-op")
	cleanupPolicy(t, name)

	op, err := c.Insert(ctx, &computepb.InsertResourcePolicyRequest{
		Project: testSandbox.Inventory.Project, Region: testSandbox.Inventory.Region, ResourcePolicyResource: dynamicSlicingPolicy(name),
	})
	if err != nil {
		t.Fatalf("insert: %v", err)
	}
	got, err := ops.Get(ctx, &computepb.GetRegionOperationRequest{Project: testSandbox.Inventory.Project, Region: testSandbox.Inventory.Region, Operation: op.Name()})
	if err != nil {
		t.Fatalf("operations.get: %v", err)
	}
	if got.GetStatus() != computepb.Operation_RUNNING || got.GetKind() != "compute#operation" ||
		got.GetSelfLink() != testRegionLink+"/operations/"+op.Name() || got.GetInsertTime() == "" {
		t.Errorf("operation before its delay: status %v, kind %q, selfLink %q, insertTime %q; want RUNNING, compute#operation, %s and a time",
			got.GetStatus(), got.GetKind(), got.GetSelfLink(), got.GetInsertTime(), testRegionLink+"/operations/"+op.Name())
	}
	if _, err := getPolicy(ctx, c, name); err == nil {
		t.Error("the policy exists before its insert operation is done")
	}

	got, err = ops.Wait(ctx, &computepb.WaitRegionOperationRequest{Project: testSandbox.Inventory.Project, Region: testSandbox.Inventory.Region, Operation: op.Name()})
	if err != nil {
		t.Fatalf("operations.wait: %v", err)
	}
	if got.GetStatus() != computepb.Operation_DONE || got.GetError() != nil {
		t.Fatalf("operation after wait: status %v, error %v; want DONE without error", got.GetStatus(), got.GetError())
	}
	if _, err := getPolicy(ctx, c, name); err != nil {
		t.Errorf("get after the operation: %v", err)
	}
	var rec *OperationRecord
	for _, r := range testSandbox.Operations() {
		if r.Name == op.Name() {
			rec = &r
		}
	}
	if rec == nil || !rec.Done || rec.API != "compute" || rec.Type != "insert" || rec.Ended.Sub(rec.Started) < 400*time.Millisecond {
		t.Errorf("operation record %+v, want a done compute insert that took the 400ms delay", rec)
	}

	// A regional operation is not a zonal one, and unknown names are 404.
	_, err = zoneOps.Get(ctx, &computepb.GetZoneOperationRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone, Operation: op.Name()})
	wantAPIError(t, err, http.StatusNotFound, op.Name())
	_, err = ops.Wait(ctx, &computepb.WaitRegionOperationRequest{Project: testSandbox.Inventory.Project, Region: testSandbox.Inventory.Region, Operation: "operation-none"})
	wantAPIError(t, err, http.StatusNotFound, "operation-none")
}

func TestComputeOperationWaitReturnsWhileRunning(t *testing.T) {
	needSandbox(t)
	// Longer than the wait limit (2 s), short enough to let the operation
	// finish before the test ends.
	withFaults(t, Faults{OperationDelayMs: 2300})
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewResourcePoliciesRESTClient)
	ops := newComputeClient(t, compute.NewRegionOperationsRESTClient)
	name := uniqueName("wp-slow")
	cleanupPolicy(t, name)
	op, err := c.Insert(ctx, &computepb.InsertResourcePolicyRequest{
		Project: testSandbox.Inventory.Project, Region: testSandbox.Inventory.Region, ResourcePolicyResource: dynamicSlicingPolicy(name),
	})
	if err != nil {
		t.Fatalf("insert: %v", err)
	}
	req := &computepb.WaitRegionOperationRequest{Project: testSandbox.Inventory.Project, Region: testSandbox.Inventory.Region, Operation: op.Name()}
	got, err := ops.Wait(ctx, req)
	if err != nil {
		t.Fatalf("operations.wait: %v", err)
	}
	if got.GetStatus() != computepb.Operation_RUNNING {
		t.Errorf("wait on a 2.3 s operation answered %v; want RUNNING after the 2 s wait limit", got.GetStatus())
	}
	// A second wait sees it done.
	if got, err = ops.Wait(ctx, req); err != nil || got.GetStatus() != computepb.Operation_DONE {
		t.Errorf("second wait: status %v, error %v; want DONE", got.GetStatus(), err)
	}
}

func TestComputeOperationFailure(t *testing.T) {
	needSandbox(t)
	withFaults(t, Faults{FailOperations: map[string]int{"insert": 1}})
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewResourcePoliciesRESTClient)
	name := uniqueName("wp-fail")
	cleanupPolicy(t, name)

	err := insertPolicy(ctx, c, dynamicSlicingPolicy(name))
	wantAPIError(t, err, http.StatusInternalServerError, "injected failure of a insert operation (sandbox fault)")
	if !strings.Contains(err.Error(), "INTERNAL_ERROR") {
		t.Errorf("error %q does not carry the operation's error code INTERNAL_ERROR", err)
	}
	_, err = getPolicy(ctx, c, name)
	wantAPIError(t, err, http.StatusNotFound, name)

	// The injected failure was used up: the next insert succeeds.
	if err := insertPolicy(ctx, c, dynamicSlicingPolicy(name)); err != nil {
		t.Fatalf("insert after the injected failure: %v", err)
	}
}

func TestComputeReservationGet(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewReservationsRESTClient)
	r, err := c.Get(ctx, &computepb.GetReservationRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone, Reservation: testReservation})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if r.GetKind() != "compute#reservation" || r.GetName() != testReservation || r.GetStatus() != "READY" ||
		r.GetZone() != testZoneLink || r.GetSelfLink() != testZoneLink+"/reservations/"+testReservation ||
		!r.GetSpecificReservationRequired() || r.GetDeploymentType() != "DENSE" || r.GetId() == 0 {
		t.Errorf("reservation %v", r)
	}
	sr := r.GetSpecificReservation()
	if sr.GetCount() != 8*16 || sr.GetInUseCount() != 0 || sr.GetInstanceProperties().GetMachineType() != "tpu7x-standard-4t" {
		t.Errorf("specificReservation count %d, inUseCount %d, machineType %q; want 128, 0, tpu7x-standard-4t",
			sr.GetCount(), sr.GetInUseCount(), sr.GetInstanceProperties().GetMachineType())
	}

	_, err = c.Get(ctx, &computepb.GetReservationRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone, Reservation: "other"})
	wantAPIError(t, err, http.StatusNotFound, "reservations/other' was not found")
	_, err = c.Get(ctx, &computepb.GetReservationRequest{Project: testSandbox.Inventory.Project, Zone: "us-central1-b", Reservation: testReservation})
	wantAPIError(t, err, http.StatusNotFound, `the sandbox zone is "us-central1-a"`)
}

func TestComputeReservationBlocks(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewReservationBlocksRESTClient)
	var blocks []*computepb.ReservationBlock
	it := c.List(ctx, &computepb.ListReservationBlocksRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone, Reservation: testReservation})
	for {
		b, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		blocks = append(blocks, b)
	}
	if len(blocks) != 2 || blocks[0].GetName() != "block-a" || blocks[1].GetName() != "block-b" {
		t.Fatalf("blocks %v; want block-a and block-b", blocks)
	}
	type want struct {
		health            string
		healthy, degraded int32
	}
	for i, w := range []want{{"HEALTHY", 4, 0}, {"DEGRADED", 2, 2}} {
		b := blocks[i]
		if b.GetKind() != "compute#reservationBlock" || b.GetStatus() != "READY" || b.GetZone() != testZoneLink ||
			b.GetSelfLink() != testZoneLink+"/reservations/"+testReservation+"/reservationBlocks/"+b.GetName() || b.GetId() == 0 {
			t.Errorf("%s: %v", b.GetName(), b)
		}
		if b.GetCount() != 64 || b.GetInUseCount() != 0 || b.GetReservationSubBlockCount() != 4 || b.GetReservationSubBlockInUseCount() != 0 {
			t.Errorf("%s: count %d, inUseCount %d, reservationSubBlockCount %d, reservationSubBlockInUseCount %d; want 64, 0, 4, 0",
				b.GetName(), b.GetCount(), b.GetInUseCount(), b.GetReservationSubBlockCount(), b.GetReservationSubBlockInUseCount())
		}
		h := b.GetHealthInfo()
		if h.GetHealthStatus() != w.health || h.GetHealthySubBlockCount() != w.healthy || h.GetDegradedSubBlockCount() != w.degraded {
			t.Errorf("%s: health %s, healthy %d, degraded %d; want %s, %d, %d", b.GetName(),
				h.GetHealthStatus(), h.GetHealthySubBlockCount(), h.GetDegradedSubBlockCount(), w.health, w.healthy, w.degraded)
		}
		key := &subBlockState{Reservation: testReservation, Block: b.GetName()}
		if pt := b.GetPhysicalTopology(); pt.GetCluster() != clusterTopologyID(testReservation) || pt.GetBlock() != blockTopologyID(key) {
			t.Errorf("%s: physicalTopology %v; want cluster %s, block %s", b.GetName(), pt, clusterTopologyID(testReservation), blockTopologyID(key))
		}
	}
	if blocks[0].GetPhysicalTopology().GetBlock() == blocks[1].GetPhysicalTopology().GetBlock() {
		t.Error("both blocks have the same physicalTopology.block")
	}

	got, err := c.Get(ctx, &computepb.GetReservationBlockRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone,
		Reservation: testReservation, ReservationBlock: "block-b"})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if !proto.Equal(got.GetResource(), blocks[1]) {
		t.Errorf("get block-b = %v; want %v as listed", got.GetResource(), blocks[1])
	}
	_, err = c.Get(ctx, &computepb.GetReservationBlockRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone,
		Reservation: testReservation, ReservationBlock: "block-z"})
	wantAPIError(t, err, http.StatusNotFound, "reservationBlocks/block-z' was not found")
}

func listSubBlocks(ctx context.Context, t *testing.T, c *compute.ReservationSubBlocksClient, block string) []*computepb.ReservationSubBlock {
	t.Helper()
	var out []*computepb.ReservationSubBlock
	it := c.List(ctx, &computepb.ListReservationSubBlocksRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone,
		ParentName: "reservations/" + testReservation + "/reservationBlocks/" + block})
	for {
		s, err := it.Next()
		if err == iterator.Done {
			return out
		}
		if err != nil {
			t.Fatalf("list sub-blocks of %s: %v", block, err)
		}
		out = append(out, s)
	}
}

func TestComputeReservationSubBlocks(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewReservationSubBlocksRESTClient)
	subs := listSubBlocks(ctx, t, c, "block-b")
	type want struct {
		name              string
		health            string
		healthy, degraded int32
	}
	wants := []want{{"sub-block-b1", "HEALTHY", 16, 0}, {"sub-block-b2", "DEGRADED", 15, 1}, {"sub-block-b3", "UNHEALTHY", 15, 1}, {"sub-block-b4", "HEALTHY", 16, 0}}
	if len(subs) != len(wants) {
		t.Fatalf("%d sub-blocks; want %d", len(subs), len(wants))
	}
	seen := map[string]bool{}
	for i, w := range wants {
		s := subs[i]
		if s.GetName() != w.name || s.GetKind() != "compute#reservationSubBlock" || s.GetStatus() != "READY" || s.GetZone() != testZoneLink ||
			s.GetSelfLink() != testZoneLink+"/reservations/"+testReservation+"/reservationBlocks/block-b/reservationSubBlocks/"+w.name || s.GetId() == 0 {
			t.Errorf("sub-block %d: %v; want %s", i, s, w.name)
		}
		if s.GetCount() != 16 || s.GetInUseCount() != 0 {
			t.Errorf("%s: count %d, inUseCount %d; want 16, 0", w.name, s.GetCount(), s.GetInUseCount())
		}
		h := s.GetHealthInfo()
		if h.GetHealthStatus() != w.health || h.GetHealthyHostCount() != w.healthy || h.GetDegradedHostCount() != w.degraded {
			t.Errorf("%s: health %s, healthy hosts %d, degraded hosts %d; want %s, %d, %d", w.name,
				h.GetHealthStatus(), h.GetHealthyHostCount(), h.GetDegradedHostCount(), w.health, w.healthy, w.degraded)
		}
		st := testSandbox.world.findSubBlock(testReservation, "block-b", w.name)
		pt := s.GetPhysicalTopology()
		if pt.GetCluster() != clusterTopologyID(testReservation) || pt.GetBlock() != blockTopologyID(st) || pt.GetSubBlock() != subBlockTopologyID(st) {
			t.Errorf("%s: physicalTopology %v; want cluster %s, block %s, subBlock %s", w.name, pt,
				clusterTopologyID(testReservation), blockTopologyID(st), subBlockTopologyID(st))
		}
		if len(pt.GetSubBlock()) != 16 || seen[pt.GetSubBlock()] {
			t.Errorf("%s: physicalTopology.subBlock %q is not a new 16-character ID", w.name, pt.GetSubBlock())
		}
		seen[pt.GetSubBlock()] = true
	}

	got, err := c.Get(ctx, &computepb.GetReservationSubBlockRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone,
		ParentName: "reservations/" + testReservation + "/reservationBlocks/block-b", ReservationSubBlock: "sub-block-b3"})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if !proto.Equal(got.GetResource(), subs[2]) {
		t.Errorf("get sub-block-b3 = %v; want %v as listed", got.GetResource(), subs[2])
	}
	_, err = c.Get(ctx, &computepb.GetReservationSubBlockRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone,
		ParentName: "reservations/" + testReservation + "/reservationBlocks/block-b", ReservationSubBlock: "sub-block-a1"})
	wantAPIError(t, err, http.StatusNotFound, "reservationBlocks/block-b/reservationSubBlocks/sub-block-a1' was not found")
}

func TestComputeSubBlockPagination(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	c := newComputeClient(t, compute.NewReservationSubBlocksRESTClient)
	it := c.List(ctx, &computepb.ListReservationSubBlocksRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone,
		ParentName: "reservations/" + testReservation + "/reservationBlocks/block-a"})
	pager := iterator.NewPager(it, 3, "")
	var sizes []int
	var names []string
	for {
		var page []*computepb.ReservationSubBlock
		next, err := pager.NextPage(&page)
		if err != nil {
			t.Fatalf("page: %v", err)
		}
		sizes = append(sizes, len(page))
		for _, s := range page {
			names = append(names, s.GetName())
		}
		if next == "" {
			break
		}
	}
	if !slices.Equal(sizes, []int{3, 1}) || !slices.Equal(names, []string{"sub-block-a1", "sub-block-a2", "sub-block-a3", "sub-block-a4"}) {
		t.Errorf("pages of %v holding %v; want pages of [3 1] holding sub-block-a1..a4", sizes, names)
	}
}

func TestComputeInUseCounts(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	reservations := newComputeClient(t, compute.NewReservationsRESTClient)
	blocks := newComputeClient(t, compute.NewReservationBlocksRESTClient)
	subBlocks := newComputeClient(t, compute.NewReservationSubBlocksRESTClient)
	read := func() (res int64, block, blockSubs, sub int32) {
		t.Helper()
		r, err := reservations.Get(ctx, &computepb.GetReservationRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone, Reservation: testReservation})
		if err != nil {
			t.Fatalf("reservation: %v", err)
		}
		b, err := blocks.Get(ctx, &computepb.GetReservationBlockRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone,
			Reservation: testReservation, ReservationBlock: "block-a"})
		if err != nil {
			t.Fatalf("block: %v", err)
		}
		s, err := subBlocks.Get(ctx, &computepb.GetReservationSubBlockRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone,
			ParentName: "reservations/" + testReservation + "/reservationBlocks/block-a", ReservationSubBlock: "sub-block-a2"})
		if err != nil {
			t.Fatalf("sub-block: %v", err)
		}
		return r.GetSpecificReservation().GetInUseCount(), b.GetResource().GetInUseCount(), b.GetResource().GetReservationSubBlockInUseCount(), s.GetResource().GetInUseCount()
	}

	w := testSandbox.world
	sub := w.findSubBlock(testReservation, "block-a", "sub-block-a2")
	w.mu.Lock()
	if sub.NodePool != "" {
		w.mu.Unlock()
		t.Fatalf("sub-block-a2 is already used by %q", sub.NodePool)
	}
	w.mu.Unlock()
	res0, block0, blockSubs0, sub0 := read()
	if sub0 != 0 {
		t.Fatalf("free sub-block-a2 has inUseCount %d; want 0", sub0)
	}

	w.mu.Lock()
	sub.NodePool = "pool-in-use-test"
	w.mu.Unlock()
	t.Cleanup(func() {
		w.mu.Lock()
		sub.NodePool = ""
		w.mu.Unlock()
	})
	res1, block1, blockSubs1, sub1 := read()
	if sub1 != 16 || block1-block0 != 16 || blockSubs1-blockSubs0 != 1 || res1-res0 != 16 {
		t.Errorf("after occupying sub-block-a2: sub-block inUseCount %d (want 16), block inUseCount +%d (want +16), "+
			"reservationSubBlockInUseCount +%d (want +1), reservation inUseCount +%d (want +16)", sub1, block1-block0, blockSubs1-blockSubs0, res1-res0)
	}
}

func TestComputeRequiresToken(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	c, err := compute.NewReservationsRESTClient(ctx, option.WithEndpoint(strings.TrimSuffix(testSandbox.GoogleURL, "/")), option.WithoutAuthentication())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	_, err = c.Get(ctx, &computepb.GetReservationRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone, Reservation: testReservation})
	wantAPIError(t, err, http.StatusUnauthorized, "use the sandbox access token")

	wrong, err := compute.NewReservationsRESTClient(ctx, option.WithEndpoint(strings.TrimSuffix(testSandbox.GoogleURL, "/")),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "not-the-token"})))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = wrong.Close() }()
	_, err = wrong.Get(ctx, &computepb.GetReservationRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone, Reservation: testReservation})
	wantAPIError(t, err, http.StatusUnauthorized, "use the sandbox access token")
}

func TestComputeInjected503IsRetried(t *testing.T) {
	needSandbox(t)
	withFaults(t, Faults{Compute: APIFaults{Rate503: 1}})
	c := newComputeClient(t, compute.NewReservationsRESTClient)
	before := testSandbox.RequestCounts()["compute GET reservations"]
	ctx, cancel := context.WithTimeout(context.Background(), 800*time.Millisecond)
	defer cancel()
	_, err := c.Get(ctx, &computepb.GetReservationRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone, Reservation: testReservation})
	if err == nil {
		t.Fatal("get succeeded while every request is answered 503")
	}
	if !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "503") {
		t.Errorf("error %v; want the deadline after retries or a 503", err)
	}
	if n := testSandbox.RequestCounts()["compute GET reservations"] - before; n < 2 {
		t.Errorf("%d request(s) reached the API; want the client to retry the 503", n)
	}

	// Insert is not retried by the client: the 503 surfaces as is.
	p := newComputeClient(t, compute.NewResourcePoliciesRESTClient)
	err = insertPolicy(testContext(t), p, dynamicSlicingPolicy(uniqueName("wp-503")))
	wantAPIError(t, err, http.StatusServiceUnavailable, "The service is currently unavailable (sandbox fault)")
}

func TestComputeInjected429(t *testing.T) {
	needSandbox(t)
	withFaults(t, Faults{Compute: APIFaults{Rate429: 1}})
	c := newComputeClient(t, compute.NewReservationsRESTClient)
	_, err := c.Get(testContext(t), &computepb.GetReservationRequest{Project: testSandbox.Inventory.Project, Zone: testSandbox.Inventory.Zone, Reservation: testReservation})
	wantAPIError(t, err, http.StatusTooManyRequests, "Rate Limit Exceeded (sandbox fault)")
}

func TestComputeUnknownPathIs404(t *testing.T) {
	needSandbox(t)
	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "compute/v1/projects/sandbox-project/global/networks"},
		{http.MethodPut, "compute/v1/projects/sandbox-project/regions/us-central1/resourcePolicies/p"},
		{http.MethodGet, "compute/v1/projects/sandbox-project/aggregated/instances"},
	} {
		req, err := http.NewRequest(tc.method, testSandbox.GoogleURL+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+testSandbox.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		_ = resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusNotFound || body.Error.Code != http.StatusNotFound || body.Error.Message == "" {
			t.Errorf("%s %s: HTTP %d, body %+v, decode error %v; want a 404 in the Google error shape", tc.method, tc.path, resp.StatusCode, body, err)
		}
	}
}

// The endpoint may be given with its trailing slash: the doubled slash in
// "//compute/v1/..." is accepted, and a POST stays a POST.
func TestComputeEndpointWithTrailingSlash(t *testing.T) {
	needSandbox(t)
	ctx := testContext(t)
	c, err := compute.NewResourcePoliciesRESTClient(ctx,
		option.WithEndpoint(testSandbox.GoogleURL),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: testSandbox.Token})))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	name := uniqueName("slash")
	cleanupPolicy(t, name)
	if err := insertPolicy(ctx, c, dynamicSlicingPolicy(name)); err != nil {
		t.Fatalf("insert through %s: %v", testSandbox.GoogleURL, err)
	}
}
