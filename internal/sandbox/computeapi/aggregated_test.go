package computeapi_test

import (
	"net/http"
	"strings"
	"testing"

	compute "cloud.google.com/go/compute/apiv1"
	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"google.golang.org/api/iterator"
	"google.golang.org/protobuf/proto"
)

// gcloud sends a sub-block's parent (reservations/R/reservationBlocks/B) as
// one escaped path segment; list and get serve it as they serve the plain
// form the Go clients send.
func TestComputeSubBlocksEscapedParent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	zone := "compute/v1/projects/" + inv.Project + "/zones/" + inv.Zone + "/"
	for _, parent := range []string{
		"reservations%2Ftpu7x-reservation%2FreservationBlocks%2Fblock-a",
		"reservations%2ftpu7x-reservation%2freservationBlocks%2fblock-a", // lower-case escapes are as valid
		"reservations/tpu7x-reservation/reservationBlocks/block-a",
	} {
		status, list := e.get(t, zone+parent+"/reservationSubBlocks")
		items, _ := list["items"].([]any)
		if status != http.StatusOK || len(items) != 4 {
			t.Errorf("list with parent %s: HTTP %d, %d items (%v); want 200 and the 4 sub-blocks of block-a", parent, status, len(items), list["error"])
		}
		status, got := e.get(t, zone+parent+"/reservationSubBlocks/sub-block-a2")
		resource, _ := got["resource"].(map[string]any)
		if status != http.StatusOK || resource["name"] != "sub-block-a2" {
			t.Errorf("get with parent %s: HTTP %d, %v; want 200 and sub-block-a2", parent, status, got)
		}
	}
	// An escaped parent is read as the plain one, unknown names included.
	status, got := e.get(t, zone+"reservations%2Ftpu7x-reservation%2FreservationBlocks%2Fblock-zz/reservationSubBlocks")
	if status != http.StatusNotFound || !strings.Contains(got["error"].(map[string]any)["message"].(string), "reservationBlocks/block-zz") {
		t.Errorf("unknown block: HTTP %d, %v; want 404 naming it", status, got)
	}
}

// resources-policies and reservations aggregated lists (what gcloud asks
// when no location narrows the list) name the sandbox's region and zone,
// through the real Go clients; a scope without items has the warning
// Compute Engine puts there.
func TestComputeAggregatedLists(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := testContext(t)
	policies := newComputeClient(t, e, compute.NewResourcePoliciesRESTClient)
	aggregatedPolicies := func() map[string][]string {
		out := map[string][]string{}
		it := policies.AggregatedList(ctx, &computepb.AggregatedListResourcePoliciesRequest{Project: inv.Project, IncludeAllScopes: proto.Bool(true)})
		for {
			pair, err := it.Next()
			if err == iterator.Done {
				return out
			}
			if err != nil {
				t.Fatalf("resource policies aggregated list: %v", err)
			}
			out[pair.Key] = []string{}
			for _, p := range pair.Value.GetResourcePolicies() {
				out[pair.Key] = append(out[pair.Key], p.GetName())
			}
		}
	}

	name := "aggregated"
	if err := insertPolicy(ctx, policies, dynamicSlicingPolicy(name)); err != nil {
		t.Fatal(err)
	}
	scope := "regions/" + inv.Region
	got := aggregatedPolicies()
	if len(got) != 1 || !strings.Contains(strings.Join(got[scope], ","), name) {
		t.Errorf("aggregated resource policies %v; want scope %s with %s", got, scope, name)
	}

	// The emptied scope keeps its key, with the no-results warning instead
	// of items.
	e.w.Mu.Lock()
	e.w.Policies = map[string]*cloud.ResourcePolicy{}
	e.w.Mu.Unlock()
	status, body := e.get(t, "compute/v1/projects/"+inv.Project+"/aggregated/resourcePolicies")
	items, _ := body["items"].(map[string]any)
	empty, _ := items[scope].(map[string]any)
	warning, _ := empty["warning"].(map[string]any)
	if status != http.StatusOK || warning["code"] != "NO_RESULTS_ON_PAGE" || empty["resourcePolicies"] != nil {
		t.Errorf("empty aggregated list: HTTP %d, %v; want scope %s with the NO_RESULTS_ON_PAGE warning", status, body, scope)
	}

	reservations := newComputeClient(t, e, compute.NewReservationsRESTClient)
	it := reservations.AggregatedList(ctx, &computepb.AggregatedListReservationsRequest{Project: inv.Project})
	found := map[string][]string{}
	for {
		pair, err := it.Next()
		if err == iterator.Done {
			break
		}
		if err != nil {
			t.Fatalf("reservations aggregated list: %v", err)
		}
		for _, r := range pair.Value.GetReservations() {
			found[pair.Key] = append(found[pair.Key], r.GetName())
		}
	}
	want := "tpu7x-reservation,tpu7x-reservation-2"
	if len(found) != 1 || strings.Join(found["zones/"+inv.Zone], ",") != want {
		t.Errorf("aggregated reservations %v; want zones/%s with %s", found, inv.Zone, want)
	}
}
