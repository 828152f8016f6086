package tpuslice

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// policyPools returns sel with the pools of its workload policy in
// NodePools: the cluster's node pools whose placement policy is
// sel.WorkloadPolicy (and, when sel names pools too, only those of them).
// NodePools is then set, and empty when no pool has the policy yet. A
// selector without a workload policy is returned as it is. The pools
// come from the engine's shared node pool list (one nodePools.list serves
// a plan's reads and selections).
func (e *Slices) policyPools(ctx context.Context, sel PartitionSelector) (PartitionSelector, error) {
	if sel.WorkloadPolicy == "" {
		return sel, nil
	}
	if e.reads.Name() == "" {
		return sel, errors.New("partition_selector.workload_policy needs the provider's project, location and cluster, to list the cluster's node pools")
	}
	pools, err := e.reads.NodePools(ctx, e.reads.Name())
	if err != nil {
		return sel, fmt.Errorf("listing the node pools of %s to find those of workload policy %s: %s", e.reads.Name(), sel.WorkloadPolicy, kernel.APIMessage(err))
	}
	want := kernel.LastSegment(sel.WorkloadPolicy)
	named := clusterread.SetOf(sel.NodePools)
	matched := []string{}
	for _, p := range pools {
		if p.PlacementPolicy == nil || kernel.LastSegment(p.PlacementPolicy.PolicyName) != want {
			continue
		}
		if len(named) == 0 || named[p.Name] {
			matched = append(matched, p.Name)
		}
	}
	slices.Sort(matched)
	sel.NodePools = matched
	return sel, nil
}

// noPolicyPools is the error of a workload policy that places no node
// pool of the cluster (none of those named, when pools are named too).
func noPolicyPools(cluster string, sel PartitionSelector) error {
	return fmt.Errorf("no node pool of %s is placed by workload policy %s (partition_selector.workload_policy): create the "+
		"node pools with workload_policy = %q, or name the policy they use", cluster, sel.WorkloadPolicy, kernel.LastSegment(sel.WorkloadPolicy))
}

// SelectionNotCheckedError is a plan's check of a selection that could
// not run: the pools of its workload policy could not be listed. The
// create selects, and fails if it cannot.
type SelectionNotCheckedError struct{ Err error }

func (e *SelectionNotCheckedError) Error() string { return e.Err.Error() }
func (e *SelectionNotCheckedError) Unwrap() error { return e.Err }
