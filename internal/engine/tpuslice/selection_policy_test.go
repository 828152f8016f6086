package tpuslice

import (
	"errors"
	"slices"
	"strings"
	"testing"

	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

const policyCluster = "projects/p/locations/us-central1/clusters/c"

// policyEngine is planEngine over planNodes, whose pools np-1 to np-3 the
// workload policy wp-a places and np-4, np-5 wp-b (by self link).
func policyEngine(t *testing.T, opts ...testOption) (*Slices, *enginetest.GKE) {
	t.Helper()
	g := enginetest.NewGKE()
	for _, p := range []struct{ pool, policy string }{
		{"np-1", "wp-a"}, {"np-2", "wp-a"}, {"np-3", "wp-a"},
		{"np-4", "projects/p/regions/us-central1/resourcePolicies/wp-b"}, {"np-5", "wp-b"},
	} {
		g.Pools[policyCluster+"/nodePools/"+p.pool] = &container.NodePool{Name: p.pool, Status: "RUNNING", PlacementPolicy: &container.PlacementPolicy{PolicyName: p.policy}}
	}
	return planEngine(clusterread.Fixed(enginetest.PlanNodes(), nil), append([]testOption{withGKE(g), boundTo(policyCluster)}, opts...)...), g
}

// A workload policy stands for the pools it places: their names, sorted,
// narrowed to the pools the selector names when it names some.
func TestPolicyPools(t *testing.T) {
	t.Parallel()
	e, g := policyEngine(t)
	for name, tc := range map[string]struct {
		sel  PartitionSelector
		want []string
	}{
		"by name":                {PartitionSelector{WorkloadPolicy: "wp-a"}, []string{"np-1", "np-2", "np-3"}},
		"by self link":           {PartitionSelector{WorkloadPolicy: "projects/p/regions/us-central1/resourcePolicies/wp-b"}, []string{"np-4", "np-5"}},
		"with pools named":       {PartitionSelector{WorkloadPolicy: "wp-a", NodePools: []string{"np-3", "np-5"}}, []string{"np-3"}},
		"a policy with no pools": {PartitionSelector{WorkloadPolicy: "wp-c"}, []string{}},
		"no policy":              {PartitionSelector{NodePools: []string{"np-5"}}, []string{"np-5"}},
	} {
		got, err := e.policyPools(t.Context(), tc.sel)
		if err != nil || !slices.Equal(got.NodePools, tc.want) || (tc.want != nil && got.NodePools == nil) {
			t.Errorf("%s: pools %#v, %v; want %#v", name, got.NodePools, err, tc.want)
		}
	}
	if lists := g.Count("listNodePools"); lists != 1 {
		t.Errorf("%d nodePools.list, want the one list shared by every resolution", lists)
	}
	unbound, _ := policyEngine(t, boundTo(""))
	if _, err := unbound.policyPools(t.Context(), PartitionSelector{WorkloadPolicy: "wp-a"}); err == nil || !strings.Contains(err.Error(), "needs the provider's project, location and cluster") {
		t.Errorf("no cluster: %v", err)
	}
	failing, g2 := policyEngine(t)
	g2.ListErr = errors.New("quota exceeded")
	if _, err := failing.policyPools(t.Context(), PartitionSelector{WorkloadPolicy: "wp-a"}); err == nil || !strings.Contains(err.Error(), "quota exceeded") {
		t.Errorf("a failed list: %v, want its error", err)
	}
	// At plan the check that could not run says so: it does not pass.
	v := failing.PlanNewSlice(t.Context(), NewSlicePlan{Name: "s", Topology: "4x4x8", Selector: &PartitionSelector{WorkloadPolicy: "wp-a"}})
	if v.Problem != SelectionNotChecked || !strings.Contains(v.Err.Error(), "quota exceeded") {
		t.Errorf("plan with a failed list: %+v, want SelectionNotChecked with its error", v)
	}
}

// Plan, apply and the check of an existing slice's partitions all select
// within the policy's pools.
func TestSelectionByWorkloadPolicy(t *testing.T) {
	t.Parallel()
	e, _ := policyEngine(t)
	sel := func(policy string) PartitionSelector {
		return PartitionSelector{WorkloadPolicy: policy, AllowDegraded: true}
	}
	// At plan: wp-a has three usable partitions (p1, p2, p3), not four;
	// a policy with no pool yet is left to the apply.
	if err := e.checkSelection(t.Context(), "s", enginetest.Topo(t, "4x4x8"), sel("wp-a"), clusterread.DevicePlugin); err != nil {
		t.Errorf("4x4x8 in wp-a at plan: %v", err)
	}
	if err := e.checkSelection(t.Context(), "s", enginetest.Topo(t, "4x4x16"), sel("wp-a"), clusterread.DevicePlugin); err == nil {
		t.Error("4x4x16 in wp-a at plan: no shortage reported")
	}
	if err := e.checkSelection(t.Context(), "s", enginetest.Topo(t, "4x4x4"), sel("wp-c"), clusterread.DevicePlugin); err != nil {
		t.Errorf("a policy with no pool yet at plan: %v, want nothing", err)
	}
	// At apply: wp-b's one usable partition is p5 (p4's node is not Ready).
	inv, _ := e.reads.Inventory(t.Context())
	choose := func(name, topo, policy string) ([]string, error) {
		s := sel(policy)
		parsed, err := topology.ParseTPU7x(topo)
		if err != nil {
			t.Fatal(err)
		}
		return e.selectPartitions(t.Context(), inv, SliceRequest{Name: name, Topology: topo, Selector: &s}, parsed)
	}
	if ids, err := choose("b", "4x4x4", "wp-b"); err != nil || !slices.Equal(ids, []string{"p5"}) {
		t.Errorf("4x4x4 in wp-b: %v, %v; want p5", ids, err)
	}
	if ids, err := choose("a", "4x4x8", "wp-a"); err != nil || len(ids) != 2 || slices.Contains(ids, "p5") {
		t.Errorf("4x4x8 in wp-a: %v, %v; want two of p1, p2, p3", ids, err)
	}
	if _, err := choose("c", "4x4x4", "wp-c"); err == nil || !strings.Contains(err.Error(), "no node pool of "+policyCluster+" is placed by workload policy wp-c") {
		t.Errorf("a policy with no pool at apply: %v", err)
	}
	// An existing slice: its partitions stand for the choice while the
	// policy places their pools (a fresh engine: the selections above
	// claimed partitions).
	e, _ = policyEngine(t)
	for name, tc := range map[string]struct {
		policy string
		want   SelectorVerdict
		why    string
	}{
		"inside":          {"wp-a", SelectorHolds, ""},
		"another policy":  {"wp-b", SelectorBroken, "which workload policy wp-b does not place"},
		"a policy unused": {"wp-c", SelectorBroken, "no node pool of " + policyCluster + " is placed by workload policy wp-c"},
	} {
		got := e.CheckSelectorHolds(t.Context(), "mine", "4x4x8", sel(tc.policy), []string{"p1", "p3"})
		if got.Verdict != tc.want || !strings.Contains(got.Reason, tc.why) {
			t.Errorf("%s: %+v, want verdict %d saying %q", name, got, tc.want, tc.why)
		}
	}
}

// Selections that wait for a pool of their policy being created read the
// cluster's node pools from one shared list: the list that resolves the
// policy also tells which pools are pending, and two slices waiting side
// by side do not list twice.
func TestPolicySelectionsShareThePoolList(t *testing.T) {
	t.Parallel()
	// A settle time of two rounds of selection (selectionRetry apart),
	// and one pool list for the whole wait.
	e, g := policyEngine(t, settle(2*selectionRetry), onePoolList)
	g.Pools[policyCluster+"/nodePools/np-6"] = &container.NodePool{Name: "np-6", Status: "PROVISIONING", PlacementPolicy: &container.PlacementPolicy{PolicyName: "wp-a"}}
	inv, err := e.reads.Inventory(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := topology.ParseTPU7x("4x4x16")
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	for _, name := range []string{"s1", "s2"} {
		go func() {
			s := PartitionSelector{WorkloadPolicy: "wp-a", AllowDegraded: true}
			_, err := e.selectPartitions(t.Context(), inv, SliceRequest{Name: name, Topology: "4x4x16", Selector: &s}, parsed)
			errs <- err
		}()
	}
	for range 2 {
		// Four partitions are needed and three are usable while np-6 is
		// created: each selection waits, then reports the shortage.
		if err := <-errs; err == nil || strings.Contains(err.Error(), finalClause) {
			t.Errorf("selection: %v, want a shortage after waiting for np-6", err)
		}
	}
	if lists := g.Count("listNodePools"); lists != 1 {
		t.Errorf("%d nodePools.list for two selections waiting on one pool, want 1", lists)
	}
}
