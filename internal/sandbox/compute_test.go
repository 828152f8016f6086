package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"golang.org/x/oauth2"
	"google.golang.org/api/option"
	"google.golang.org/protobuf/proto"
)

// The emulated Compute Engine API's own tests are in package computeapi,
// over a world of their own on an httptest server. What is left here needs
// the sandbox itself: its server (the doubled slash of an endpoint given
// with its trailing slash), and the helpers of the tests that drive the
// sandbox's Kubernetes parts through the APIs.

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

// googleGET sends a GET for path (relative to the emulated APIs, kept as
// written: escaped slashes stay escaped) with the sandbox token and
// returns the status and the decoded JSON body.
func googleGET(t *testing.T, path string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(testContext(t), http.MethodGet, testSandbox.GoogleURL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testSandbox.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("GET %s: %s: not JSON: %v\n%s", path, resp.Status, err, b)
	}
	return resp.StatusCode, body
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

// cleanupPolicy removes a policy after the test, whatever became of it.
func cleanupPolicy(t *testing.T, name string) {
	t.Cleanup(func() {
		testSandbox.world.Mu.Lock()
		delete(testSandbox.world.Policies, testSandbox.Inventory.Region+"/"+name)
		testSandbox.world.Mu.Unlock()
	})
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
