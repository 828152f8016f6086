package kueue

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	container "google.golang.org/api/container/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// kueueResourceList is discovery's resource list of a Kueue version.
func kueueResourceList(version string, resources ...string) *metav1.APIResourceList {
	list := &metav1.APIResourceList{GroupVersion: kernel.KueueGroup + "/" + version}
	for _, r := range resources {
		list.APIResources = append(list.APIResources, metav1.APIResource{Name: r})
	}
	return list
}

// The decision on what discovery says: Kueue missing, too old (v1beta1
// only), or v1beta2 without a resource the path needs. A cluster whose
// Kueue serves only v1beta1 cannot be had from the sandbox, which installs
// the pinned Kueue release's CRDs: this is its test.
func TestServedKueueAPIProblem(t *testing.T) {
	t.Parallel()
	all := append([]string{"clusterqueues/status", "cohorts", "multikueueclusters"}, KueueResources...)
	for name, tc := range map[string]struct {
		served  servedKueueAPI
		missing []string
		says    []string
	}{
		"complete": {served: servedKueueAPI{Versions: []string{"v1beta2", "v1beta1"}, Resources: all}},
		"not installed": {served: servedKueueAPI{}, missing: KueueResources, says: []string{
			"does not serve the API group kueue.x-k8s.io: Kueue is not installed",
			"needs kueue.x-k8s.io/v1beta2 serving topologies, resourceflavors, admissionchecks, clusterqueues, localqueues, workloads (Kueue v0.15 or later",
			"Install Kueue v0.15 or later"}},
		"v1beta1 only": {served: servedKueueAPI{Versions: []string{"v1beta1"}}, missing: KueueResources, says: []string{
			"serves kueue.x-k8s.io only in version(s) v1beta1, not v1beta2: its Kueue is older than v0.15",
			"Upgrade Kueue to v0.15 or later"}},
		"v1beta2 without workloads and topologies": {
			served:  servedKueueAPI{Versions: []string{"v1beta2"}, Resources: []string{"resourceflavors", "admissionchecks", "clusterqueues", "localqueues"}},
			missing: []string{"topologies", "workloads"},
			says:    []string{"serves kueue.x-k8s.io/v1beta2 without topologies, workloads", "Install or upgrade Kueue to v0.15 or later with all its CRDs"}},
	} {
		p := tc.served.problem()
		if tc.missing == nil {
			if p != nil {
				t.Errorf("%s: %v, want no problem", name, p)
			}
			continue
		}
		if p == nil || !reflect.DeepEqual(p.Missing, tc.missing) {
			t.Errorf("%s: problem %+v, want missing %v", name, p, tc.missing)
			continue
		}
		for _, want := range tc.says {
			if !strings.Contains(p.Detail(), want) {
				t.Errorf("%s: %q does not say %q", name, p.Detail(), want)
			}
		}
	}
}

// Discovery is read for the Kueue group and its v1beta2 resources; a
// group or version not served is an answer.
func TestReadServedKueueAPI(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		lists []*metav1.APIResourceList
		want  servedKueueAPI
	}{
		"none": {lists: []*metav1.APIResourceList{{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "nodes"}}}}},
		"v1beta1": {lists: []*metav1.APIResourceList{kueueResourceList("v1beta1", "clusterqueues")},
			want: servedKueueAPI{Versions: []string{"v1beta1"}}},
		"both": {lists: []*metav1.APIResourceList{kueueResourceList("v1beta2", "topologies", "workloads"), kueueResourceList("v1beta1", "clusterqueues")},
			want: servedKueueAPI{Versions: []string{"v1beta2", "v1beta1"}, Resources: []string{"topologies", "workloads"}}},
	} {
		kube, _ := enginetest.NewKube()
		kube.Resources = tc.lists
		got, err := readServedKueueAPI(t.Context(), kube.Discovery())
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, %v; want %+v", name, got, err, tc.want)
		}
	}
}

// kueueNode is a tpu7x node of pool on partition id of block, with every
// label the Topology with sub-slicing names.
func kueueNode(name, pool, block, id string, opts ...enginetest.NodeOpt) *corev1.Node {
	labels := []string{wellknown.LabelAccelerator, topology.SliceType, wellknown.LabelTopologyBlock, block, wellknown.LabelHostname, name}
	for _, shape := range topology.PartitionShapes {
		labels = append(labels, topology.PartitionIDLabel(shape), id+"-"+shape)
	}
	n := enginetest.Node(name, pool, append([]enginetest.NodeOpt{enginetest.Labelled(labels...), enginetest.Ready}, opts...)...)
	n.Labels[wellknown.LabelPartitionID] = id
	return n
}

func without(labels ...string) enginetest.NodeOpt {
	return func(n *corev1.Node) {
		for _, l := range labels {
			delete(n.Labels, l)
		}
	}
}

func TestPoolProblems(t *testing.T) {
	t.Parallel()
	levels := KueueSlicing{SubSlicing: true}.TopologyLevels()
	good := []*corev1.Node{kueueNode("a-0", "a", "b1", "p1"), kueueNode("a-1", "a", "b1", "p1")}
	for name, tc := range map[string]struct {
		facts   []kueuePoolFacts
		atApply bool
		says    []string
	}{
		"good":                    {facts: []kueuePoolFacts{{name: "a", listed: true, nodes: good}}},
		"not made yet, at plan":   {facts: []kueuePoolFacts{{name: "new"}}},
		"provisioning, at apply":  {facts: []kueuePoolFacts{{name: "new", listed: true, provisioning: true}}, atApply: true},
		"listed without nodes":    {facts: []kueuePoolFacts{{name: "empty", listed: true}}, says: []string{"node pool empty has no nodes"}},
		"without nodes, at apply": {facts: []kueuePoolFacts{{name: "empty"}}, atApply: true, says: []string{"node pool empty has no nodes"}},
		"not tpu7x": {facts: []kueuePoolFacts{{name: "cpu", listed: true, nodes: []*corev1.Node{enginetest.Node("cpu-0", "cpu", enginetest.Ready), kueueNode("cpu-1", "cpu", "b1", "p1", enginetest.Labelled(wellknown.LabelAccelerator, "v6e"))}}},
			says: []string{"node pool cpu: 2 of its 2 nodes are not tpu7x nodes (no cloud.google.com/gke-tpu-accelerator label, cloud.google.com/gke-tpu-accelerator=v6e)",
				"1 of its 2 nodes lack the label cloud.google.com/gce-topology-block",
				"List only tpu7x sub-block node pools (gke_subblock_node_pool) in node_pools"}},
		"no block label": {facts: []kueuePoolFacts{{name: "a", listed: true, nodes: []*corev1.Node{kueueNode("a-0", "a", "b1", "p1", without(wellknown.LabelTopologyBlock)), good[1]}}},
			says: []string{"node pool a: 1 of its 2 nodes lack the label cloud.google.com/gce-topology-block",
				"every level label of the Topology (cloud.google.com/gce-topology-block, cloud.google.com/gke-tpu-partition-4x4x4-id,"}},
		"no sub-slice labels": {facts: []kueuePoolFacts{{name: "old", listed: true, nodes: []*corev1.Node{kueueNode("old-0", "old", "b1", "p1", without(topology.PartitionIDLabel("2x2x1")))}}},
			says: []string{"node pool old: 1 of its 1 nodes lack the label cloud.google.com/gke-tpu-partition-2x2x1-id",
				"set sub_slicing = false", "1.36.0-gke.3712000"}},
	} {
		p := poolProblems(tc.facts, levels, tc.atApply)
		if tc.says == nil {
			if p != nil {
				t.Errorf("%s: %v, want no problem", name, p)
			}
			continue
		}
		if p == nil {
			t.Errorf("%s: no problem, want one saying %q", name, tc.says)
			continue
		}
		for _, want := range tc.says {
			if !strings.Contains(p.Detail(), want) {
				t.Errorf("%s: %q does not say %q", name, p.Detail(), want)
			}
		}
	}
	// Without sub-slicing, the sub-slice labels are not levels.
	old := []kueuePoolFacts{{name: "old", listed: true, nodes: []*corev1.Node{kueueNode("old-0", "old", "b1", "p1", without(topology.PartitionIDLabel("2x2x1")))}}}
	if p := poolProblems(old, KueueSlicing{}.TopologyLevels(), false); p != nil {
		t.Errorf("without sub-slicing: %v", p)
	}
}

// poolsOn are facts of pools with one partition each (two nodes) in the
// given physical blocks, pool i named after its block.
func poolsOn(blocks ...string) []kueuePoolFacts {
	var out []kueuePoolFacts
	for i, b := range blocks {
		name := fmt.Sprintf("%s-%d", b, i)
		out = append(out, kueuePoolFacts{name: name, listed: true, gkeKnown: true, nodeCount: 16, reservationBlock: "res/" + b,
			nodes: []*corev1.Node{kueueNode(name+"-0", name, b, name+"-part"), kueueNode(name+"-1", name, b, name+"-part")}})
	}
	return out
}

func TestCapacityOf(t *testing.T) {
	t.Parallel()
	facts := poolsOn("b1", "b2", "b2")
	c := capacityOf(facts, kueueCheck{})
	if c.quota != 192 || c.quotaBound || c.block != "b2" || c.partitions != 2 || c.unplaced != 0 || !reflect.DeepEqual(c.blockPools, []string{"b2-1", "b2-2"}) {
		t.Errorf("three pools made: %+v", c)
	}
	// A pool still provisioning is in its reservation block's physical
	// block; one not made yet, or not known yet, may be anywhere.
	more := append(facts,
		kueuePoolFacts{name: "coming", listed: true, gkeKnown: true, provisioning: true, nodeCount: 16, reservationBlock: "res/b1"},
		kueuePoolFacts{name: "new", gkeKnown: true})
	c = capacityOf(more, kueueCheck{unknownPools: 1})
	if c.quota != 5*64+64 || !c.quotaBound || c.partitions != 2 || c.unplaced != 2 {
		t.Errorf("with pools coming: %+v", c)
	}
	// At apply the quota is the ClusterQueue's, and a pool without nodes
	// brings nothing.
	c = capacityOf(append(facts, kueuePoolFacts{name: "empty", listed: true, gkeKnown: true, nodeCount: 16}), kueueCheck{atApply: true, quota: 256})
	if c.quota != 256 || c.quotaBound || c.unplaced != 0 {
		t.Errorf("at apply: %+v", c)
	}
	// GKE's list could not be read: no quota.
	if c := capacityOf([]kueuePoolFacts{{name: "x"}}, kueueCheck{}); c.quotaKnown {
		t.Errorf("without GKE's list: %+v", c)
	}
}

func TestWorkloadTopologyProblems(t *testing.T) {
	t.Parallel()
	four := kueueCapacity{quota: 256, quotaKnown: true, blocksKnown: true, block: "b1", partitions: 4, blockPools: []string{"a", "b", "c", "d"}}
	split := kueueCapacity{quota: 256, quotaKnown: true, blocksKnown: true, block: "b1", partitions: 2, blockPools: []string{"a", "b"}}
	bound := kueueCapacity{quota: 128, quotaKnown: true, quotaBound: true, blocksKnown: true, block: "b1", partitions: 1, blockPools: []string{"a"}, unplaced: 1}
	for name, tc := range map[string]struct {
		topology   string
		subSlicing bool
		c          kueueCapacity
		rule       KueueTopologyRule
		says       []string
	}{
		"fits":                 {topology: "4x8x8", subSlicing: true, c: four},
		"sub-slice fits":       {topology: "2x2x2", subSlicing: true, c: split},
		"unknown capacity":     {topology: "16x16x16", subSlicing: true},
		"invalid":              {topology: "4x8x4", c: four, rule: KueueTopologyInvalid, says: []string{`write the same shape as "4x4x8"`}},
		"sub-slice without it": {topology: "2x2x2", c: four, rule: KueueTopologySubSlicing, says: []string{`workload topology "2x2x2" is a sub-slice`, "Set sub_slicing = true"}},
		"over the quota": {topology: "8x8x8", subSlicing: true, c: four, rule: KueueTopologyQuota, says: []string{
			`workload topology "8x8x8" needs 512 chips (8×8×8), but the ClusterQueue's google.com/tpu quota is 256 chips`, "Add 4 more sub-block node pool(s)"}},
		"over the bound": {topology: "4x4x12", subSlicing: true, c: bound, rule: KueueTopologyQuota, says: []string{
			"quota will be at most 128 chips", "counting 64 for each pool not made yet"}},
		"split over blocks": {topology: "4x4x12", subSlicing: true, c: split, rule: KueueTopologyBlock, says: []string{
			`workload topology "4x4x12" is a super-slice of 3 partitions (4×4×12 chips / 64 per partition), which must all be in one reservation block`,
			"the node pools have at most 2 partition(s) in one block (block b1: a, b)",
			"Add node pools on 1 more sub-block(s) of one reservation block to node_pools", `at most 2 partition(s), such as "4x4x8"`}},
		"fits with a pool to come": {topology: "4x4x8", subSlicing: true, c: bound},
	} {
		problems := workloadTopologyProblems([]string{"", tc.topology}, tc.subSlicing, tc.c)
		if tc.rule == "" {
			if len(problems) > 0 {
				t.Errorf("%s: %v, want none", name, problems)
			}
			continue
		}
		var p *KueueTopologyError
		if len(problems) != 1 || !errors.As(problems[0], &p) || p.Rule != tc.rule || p.Index != 1 || p.Topology != tc.topology {
			t.Errorf("%s: %v, want one %s problem at index 1", name, problems, tc.rule)
			continue
		}
		for _, want := range tc.says {
			if !strings.Contains(p.Detail(), want) {
				t.Errorf("%s: %q does not say %q", name, p.Detail(), want)
			}
		}
	}
}

// kueueEngine is the Kueue, as engine.New builds it, over a cluster with
// nodes, namespaces and the given Kueue discovery, and GKE pools.
func kueueEngine(t *testing.T, g *enginetest.GKE, lists []*metav1.APIResourceList, namespaces []string, nodes ...*corev1.Node) *Kueue {
	t.Helper()
	return kueueEngineWith(t, g, lists, namespaces, nodes)
}

// kueueEngineWith is kueueEngine built with opts.
func kueueEngineWith(t *testing.T, g *enginetest.GKE, lists []*metav1.APIResourceList, namespaces []string, nodes []*corev1.Node, opts ...testOption) *Kueue {
	t.Helper()
	kube, _ := enginetest.NewKube(nodes...)
	kube.Resources = lists
	for _, ns := range namespaces {
		if _, err := kube.CoreV1().Namespaces().Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return newTestKueue(g, kube, append([]testOption{withInventory(newInventory(t, kube))}, opts...)...)
}

var fullKueue = []*metav1.APIResourceList{kueueResourceList("v1beta2", KueueResources...)}

// A plan checks what the cluster can tell: a pool made and one not made
// yet, namespaces, and topologies against the pools' blocks and quota.
func TestPlanKueueSlicing(t *testing.T) {
	t.Parallel()
	const cluster = "projects/p/locations/l/clusters/c"
	g := enginetest.NewGKE()
	g.Pools[cluster+"/nodePools/a"] = &container.NodePool{Name: "a", InitialNodeCount: 16, Status: "RUNNING"}
	g.Pools[cluster+"/nodePools/b"] = &container.NodePool{Name: "b", InitialNodeCount: 16, Status: "RUNNING"}
	g.Pools[cluster+"/nodePools/cpu"] = &container.NodePool{Name: "cpu", InitialNodeCount: 3, Status: "RUNNING"}
	nodes := []*corev1.Node{kueueNode("a-0", "a", "b1", "p1"), kueueNode("b-0", "b", "b2", "p2"), enginetest.Node("cpu-0", "cpu", enginetest.Ready)}
	e := kueueEngineWith(t, g, fullKueue, []string{"team-a"}, nodes, boundTo(cluster))

	v := e.PlanKueueSlicing(t.Context(), KueuePlan{SubSlicing: true, NodePools: []string{"a", "b", "new"},
		Namespaces: []string{"team-a"}, WorkloadTopologies: []string{"4x4x8", "2x2x2"}, PlannedPools: []string{"new"}})
	if v.Unreadable != nil || len(v.Problems) != 0 {
		t.Errorf("a good set-up, with a pool to come: %+v", v)
	}
	v = e.PlanKueueSlicing(t.Context(), KueuePlan{SubSlicing: true, NodePools: []string{"a", "nope"}, Namespaces: []string{"team-a"}})
	var missing *KueueNodePoolError
	if len(v.Problems) != 1 || !errors.As(v.Problems[0], &missing) || len(missing.Problems) != 1 || !missing.Problems[0].Missing {
		t.Fatalf("a pool that neither exists nor is planned: %v", v.Problems)
	}
	testsupport.WantContains(t, missing, "node pool nope does not exist in cluster "+cluster, "every pool of node_pools must exist",
		"node_pools = [gke_subblock_node_pool.NAME.name]")
	v = e.PlanKueueSlicing(t.Context(), KueuePlan{SubSlicing: false, NodePools: []string{"a", "b", "cpu"},
		Namespaces: []string{"team-a", "team-x"}, WorkloadTopologies: []string{"4x4x8", "2x2x2"}})
	var pools *KueueNodePoolError
	var namespaces *KueueNamespaceError
	var topo *KueueTopologyError
	if len(v.Problems) != 4 || !errors.As(v.Problems[0], &pools) || !errors.As(v.Problems[1], &namespaces) || !errors.As(v.Problems[2], &topo) {
		t.Fatalf("problems %v, want the pools, the namespaces and two topologies", v.Problems)
	}
	if len(pools.Problems) != 1 || pools.Problems[0].Pool != "cpu" || !reflect.DeepEqual(namespaces.Missing, []string{"team-x"}) {
		t.Errorf("pools %+v, namespaces %+v", pools.Problems, namespaces)
	}
	if topo.Rule != KueueTopologyBlock || topo.Needed != 2 || topo.Have != 1 {
		t.Errorf("4x4x8 over two blocks: %+v", topo)
	}
	if !errors.As(v.Problems[3], &topo) || topo.Rule != KueueTopologySubSlicing || topo.Index != 1 {
		t.Errorf("2x2x2 without sub-slicing: %v", v.Problems[3])
	}
	// Unknown pools are not held against a topology.
	v = e.PlanKueueSlicing(t.Context(), KueuePlan{SubSlicing: true, PoolsUnknown: true, WorkloadTopologies: []string{"16x16x16"}})
	if len(v.Problems) != 0 {
		t.Errorf("unknown pools: %v", v.Problems)
	}
}

func TestPlanKueueSlicingAPI(t *testing.T) {
	t.Parallel()
	e := kueueEngine(t, enginetest.NewGKE(), []*metav1.APIResourceList{kueueResourceList("v1beta1", "clusterqueues")}, nil)
	v := e.PlanKueueSlicing(t.Context(), KueuePlan{SubSlicing: true, PoolsUnknown: true})
	var api *KueueAPIError
	if len(v.Problems) != 1 || !errors.As(v.Problems[0], &api) || !reflect.DeepEqual(api.Served, []string{"v1beta1"}) {
		t.Errorf("v1beta1 only: %v", v.Problems)
	}
}

// A cluster that cannot be read yet is not checked; one that cannot be
// read for a reason waiting does not cure is reported as unreadable.
func TestPlanKueueSlicingUnreadable(t *testing.T) {
	t.Parallel()
	e := newTestKueue(enginetest.NewGKE(), nil, inventoryFails(errors.New("no such cluster yet")))
	if v := e.PlanKueueSlicing(t.Context(), KueuePlan{Namespaces: []string{"x"}}); v.Unreadable != nil || len(v.Problems) > 0 {
		t.Errorf("a cluster not made yet: %+v", v)
	}
	e = newTestKueue(enginetest.NewGKE(), nil, inventoryFails(&clusterread.ClusterAccessError{What: "nodes", Err: errors.New("x509: unknown authority")}))
	var access *clusterread.ClusterAccessError
	if v := e.PlanKueueSlicing(t.Context(), KueuePlan{Namespaces: []string{"x"}}); !errors.As(v.Unreadable, &access) {
		t.Errorf("a certificate that does not verify: %+v", v)
	}
}

// An apply is refused before any object is applied, with every problem;
// a pool just made whose nodes the watch has not caught up with is read
// from the API server.
func TestApplyKueueSlicingRefused(t *testing.T) {
	t.Parallel()
	const cluster = "projects/p/locations/l/clusters/c"
	g := enginetest.NewGKE()
	g.Pools[cluster+"/nodePools/a"] = &container.NodePool{Name: "a", InitialNodeCount: 16, Status: "RUNNING"}
	g.Pools[cluster+"/nodePools/gone"] = &container.NodePool{Name: "gone", InitialNodeCount: 16, Status: "RUNNING"}
	e := kueueEngineWith(t, g, fullKueue, []string{"team-a"}, []*corev1.Node{kueueNode("a-0", "a", "b1", "p1")}, boundTo(cluster),
		wrapClients(func(c kernel.Cluster) kernel.Cluster { return noKueueObjects{c, t} }))
	k := KueueSlicing{Name: "tpu", SubSlicing: true, NodePools: []string{"a", "gone"}, Namespaces: []string{"team-a", "nope"},
		TPUQuota: 128, WorkloadTopologies: []string{"4x4x8"}}
	_, err := e.ApplyKueueSlicing(t.Context(), k, nil)
	var setup *KueueSetupError
	if !errors.As(err, &setup) || !errors.Is(err, ErrKueueSetup) || len(setup.Problems) != 3 {
		t.Fatalf("ApplyKueueSlicing = %v, want a KueueSetupError with three problems", err)
	}
	var namespaces *KueueNamespaceError
	if !errors.As(setup.Problems[1], &namespaces) || !strings.Contains(namespaces.Detail(), "namespace nope does not exist. A LocalQueue is made in each namespace") {
		t.Errorf("namespaces at apply: %v", setup.Problems[1])
	}
	testsupport.WantContains(t, setup.Problems[0], "node pool gone has no nodes")
	testsupport.WantContains(t, setup.Problems[2], `workload topology "4x4x8" is a super-slice of 2 partitions`)
}

// noKueueObjects is a cluster whose Kueue objects a test must not touch.
type noKueueObjects struct {
	kernel.Cluster
	t *testing.T
}

func (c noKueueObjects) Kueue(resource string) dynamic.NamespaceableResourceInterface {
	c.t.Errorf("Kueue %s used: an object was applied after the check failed", resource)
	return c.Cluster.Kueue(resource)
}

// The ResourceFlavor tolerates GKE's TPU taint.
func TestKueueResourceFlavorTolerations(t *testing.T) {
	t.Parallel()
	rf := KueueSlicing{Name: "tpu"}.objects()[1].obj.Object["spec"].(map[string]any)
	want := []any{map[string]any{"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}}
	if !reflect.DeepEqual(rf["tolerations"], want) {
		t.Errorf("ResourceFlavor tolerations %v, want %v", rf["tolerations"], want)
	}
	// A flavor made without them drifts.
	if p := firstDifference("spec", rf, map[string]any{"nodeLabels": rf["nodeLabels"], "topologyName": "tpu"}); p != "spec.tolerations" {
		t.Errorf("drift of a flavor without tolerations at %q, want spec.tolerations", p)
	}
}
