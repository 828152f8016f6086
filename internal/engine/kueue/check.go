package kueue

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	corev1 "k8s.io/api/core/v1"
)

// The checks of a Kueue set-up, made at plan (PlanKueueSlicing) where the
// provider can know, and again before an apply (ApplyKueueSlicing), which
// refuses to apply anything the path cannot use. Terraform plans a
// resource again during the apply, with the values of the resources it
// depends on then known, so the plan's checks also run once the pools
// and namespaces of the same apply are made.
//
//   - the cluster serves kueue.x-k8s.io/v1beta2 with every resource the
//     path needs (KueueAPIError);
//   - every node pool of node_pools has nodes that the ResourceFlavor and
//     the Topology select (KueueNodePoolError); at plan only the pools
//     that exist, since others may be made by the same apply;
//   - every namespace exists (KueueNamespaceError);
//   - every workload topology is a tpu7x topology, a sub-slice only with
//     sub-slicing, within the ClusterQueue's quota, and a super-slice no
//     larger than the pools' partitions in one reservation block
//     (KueueTopologyError).
//
// What a plan does not know yet is not checked, and a capacity that pools
// not made yet may still add to is not held against a topology: a pool of
// node_pools is a sub-block pool, which brings at most one partition and
// 16 nodes (64 chips).

// KueuePlan is a gke_kueue_slicing as a plan knows it; what is not known
// yet (values from resources of the same apply) is left out.
type KueuePlan struct {
	SubSlicing bool
	// NodePools are the known names of node_pools, and UnknownPools the
	// number not known yet; PoolsUnknown says node_pools itself is not.
	NodePools    []string
	UnknownPools int
	PoolsUnknown bool
	// Namespaces are the known names of namespaces.
	Namespaces []string
	// WorkloadTopologies are workload_topologies, "" for a value not
	// known yet (so that each keeps its index).
	WorkloadTopologies []string
	// Overflow is the overflow flavor, with the known names of its pools.
	Overflow *KueueOverflow
	// Destroy plans the delete of the objects of the ClusterQueue Name:
	// only its admitted workloads are checked (delete.go).
	Destroy bool
	Name    string
	// PlannedPools are the node pools that resources of this plan make:
	// a pool of NodePools that the cluster lacks is a problem unless it
	// is one of them.
	PlannedPools []string
}

// KueueVerdict is what a plan found wrong with a Kueue set-up.
type KueueVerdict struct {
	// Unreadable is set (a *ClusterAccessError) when the cluster cannot be
	// read for a reason that waiting does not cure; nothing was checked.
	// A cluster that cannot be read yet (made by the same apply) is
	// neither a problem nor unreadable.
	Unreadable error
	// Problems are *KueueAPIError, *KueueNodePoolError,
	// *KueueNamespaceError and *KueueTopologyError values, in that order;
	// of a Destroy plan, a *KueueWorkloadsAdmittedError.
	Problems []error
}

// kueueCheck is what the checks of plan and apply share.
type kueueCheck struct {
	cluster      string
	subSlicing   bool
	pools        []string
	unknownPools int
	poolsKnown   bool
	namespaces   []string
	topologies   []string
	// atApply: every pool must exist and have nodes, the quota is known
	// (quota), and the inventory's watch may lag the pools just made.
	atApply bool
	quota   int64
	// overflow is the overflow flavor (overflow_check.go).
	overflow *KueueOverflow
	// planned are the pools that resources of the plan make.
	planned []string
}

// PlanKueueSlicing checks at plan what the cluster can tell of the Kueue
// set-up p.
func (e *Kueue) PlanKueueSlicing(ctx context.Context, p KueuePlan) KueueVerdict {
	if p.Destroy {
		return e.planKueueDestroy(ctx, p.Name)
	}
	problems, unreadable := e.checkKueue(ctx, kueueCheck{
		cluster: e.reads.Name(), subSlicing: p.SubSlicing, pools: p.NodePools, unknownPools: p.UnknownPools, poolsKnown: !p.PoolsUnknown,
		namespaces: p.Namespaces, topologies: p.WorkloadTopologies, overflow: p.Overflow, planned: p.PlannedPools,
	})
	return KueueVerdict{Unreadable: unreadable, Problems: problems}
}

// checkKueueBeforeApply checks k before any of its objects is applied: a
// KueueSetupError with every problem found, a ClusterAccessError, or nil.
func (e *Kueue) checkKueueBeforeApply(ctx context.Context, k KueueSlicing) error {
	problems, unreadable := e.checkKueue(ctx, kueueCheck{
		cluster: e.reads.Name(), subSlicing: k.SubSlicing, pools: k.NodePools, poolsKnown: true,
		namespaces: k.Namespaces, topologies: k.WorkloadTopologies, atApply: true, quota: k.TPUQuota, overflow: k.Overflow,
	})
	if unreadable != nil {
		return unreadable
	}
	if len(problems) > 0 {
		return &KueueSetupError{Problems: problems}
	}
	return nil
}

func (e *Kueue) checkKueue(ctx context.Context, c kueueCheck) ([]error, error) {
	inv, known, err := e.reads.Known(ctx)
	if err != nil {
		return nil, err
	}
	if !known {
		// A cluster that cannot be read yet: the apply's own requests
		// report what stops them.
		tflog.Debug(ctx, "Kueue set-up not checked: the cluster cannot be read yet")
		return nil, nil
	}
	kube, err := e.cluster(ctx)
	if err != nil {
		return nil, nil //nolint:nilerr // the inventory above reads the same cluster: it was reachable a moment ago
	}
	var problems []error
	if served, err := readServedKueueAPI(ctx, kube.Discovery()); err != nil {
		tflog.Debug(ctx, "Kueue's API not checked", map[string]any{"error": err.Error()})
	} else if p := served.problem(); p != nil {
		problems = append(problems, p)
	}
	var capacity kueueCapacity
	if c.poolsKnown {
		facts := e.kueuePoolFacts(ctx, inv, kube, c)
		if p := withUnplanned(poolProblems(facts, KueueSlicing{SubSlicing: c.subSlicing}.TopologyLevels(), c.atApply), facts, c); p != nil {
			problems = append(problems, p)
		}
		capacity = capacityOf(facts, c)
	}
	if missing := missingNamespaces(ctx, kube, c.namespaces); len(missing) > 0 {
		problems = append(problems, &KueueNamespaceError{Missing: missing})
	}
	problems = append(problems, e.overflowProblems(ctx, c.overflow, c.atApply)...)
	problems = append(problems, workloadTopologyProblems(reservationTopologies(c.topologies, c.overflow), c.subSlicing, capacity)...)
	return problems, nil
}

// kueuePoolFacts is what the cluster says of one pool of node_pools.
type kueuePoolFacts struct {
	name string
	// listed: GKE lists the pool (gkeKnown: the list was read).
	listed, gkeKnown bool
	// provisioning: GKE is still making (or remaking) its nodes.
	provisioning bool
	// nodeCount is GKE's node count for the pool.
	nodeCount int64
	// reservationBlock is "reservation/block" of its reservation affinity.
	reservationBlock string
	nodes            []*corev1.Node
}

// exists says whether the pool is there now (not one the apply makes).
func (f kueuePoolFacts) exists() bool { return f.listed || len(f.nodes) > 0 }
