package kueue

import (
	"fmt"
	"slices"
	"strings"
)

// The rule for a node pool of node_pools that does not exist: the
// ClusterQueue's quota is the chips of node_pools, so every pool must be
// in the cluster when the objects are applied. A plan reports a pool that
// the cluster lacks unless a resource of the same plan makes it
// (KueuePlan.PlannedPools); an apply refuses before any object exists.

// missingPoolsDetail is the Detail of a KueueNodePoolError whose pools
// all do not exist: lines name them.
func missingPoolsDetail(lines []string, cluster string) string {
	in := ""
	if cluster != "" {
		in = " in cluster " + cluster
	}
	return fmt.Sprintf("%s%s. The ClusterQueue's google.com/tpu quota is the chips of node_pools, and Kueue places its workloads only "+
		"on their nodes, so every pool of node_pools must exist. List node pools that exist (check the names), or refer to the "+
		"resource that makes the pool (node_pools = [gke_subblock_node_pool.NAME.name]) so that Terraform makes it first.",
		strings.Join(lines, "; "), in)
}

// missingPools is the KueueSetupError of an apply whose node_pools name
// pools that the cluster does not have: nothing is applied.
func missingPools(cluster string, names []string) error {
	problems := make([]KueuePoolProblem, len(names))
	for i, n := range names {
		problems[i] = KueuePoolProblem{Pool: n, Missing: true}
	}
	return &KueueSetupError{Problems: []error{&KueueNodePoolError{Problems: problems, Cluster: cluster}}}
}

// withUnplanned adds to p (nil when no pool has another problem) the
// pools of a plan's facts that do not exist and that no resource of the
// plan makes; nil when there are none either.
func withUnplanned(p *KueueNodePoolError, facts []kueuePoolFacts, c kueueCheck) *KueueNodePoolError {
	if c.atApply {
		return p
	}
	missing := unplannedPools(facts, c.planned)
	if len(missing) == 0 {
		return p
	}
	if p == nil {
		p = &KueueNodePoolError{Levels: KueueSlicing{SubSlicing: c.subSlicing}.TopologyLevels()}
	}
	p.Cluster = c.cluster
	for _, n := range missing {
		p.Problems = append(p.Problems, KueuePoolProblem{Pool: n, Missing: true})
	}
	return p
}

// unplannedPools are the pools of facts that GKE does not list (the list
// was read), that have no nodes, and that no resource of the plan makes.
func unplannedPools(facts []kueuePoolFacts, planned []string) []string {
	var out []string
	for _, f := range facts {
		if f.gkeKnown && !f.exists() && !slices.Contains(planned, f.name) {
			out = append(out, f.name)
		}
	}
	return out
}
