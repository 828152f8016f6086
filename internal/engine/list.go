package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"cloud.google.com/go/compute/apiv1/computepb"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/workloadpolicy"
)

// The lists of existing objects that `terraform query` shows: each a typed
// result the list resources map to identities and states, so that what
// was made outside Terraform (gcloud, kubectl, xpk) can be imported with
// generated configuration.

// ResourcePolicyLister lists a region's resource policies. The engine's
// Compute may implement it; ListWorkloadPolicies needs it.
type ResourcePolicyLister interface {
	ListResourcePolicies(ctx context.Context, project, region string) ([]*computepb.ResourcePolicy, error)
}

// ErrListUnsupported says that the Compute client cannot list resource
// policies.
var ErrListUnsupported = errors.New("this Compute client cannot list resource policies")

// ListWorkloadPolicies returns the workload policies of a region (resource
// policies of other kinds, such as snapshot schedules, are left out),
// sorted by name, as ReadWorkloadPolicy reports each.
func (e *Engine) ListWorkloadPolicies(ctx context.Context, project, region string) ([]*WorkloadPolicy, error) {
	lister, ok := e.compute.(ResourcePolicyLister)
	if !ok {
		return nil, ErrListUnsupported
	}
	policies, err := lister.ListResourcePolicies(ctx, project, region)
	if err != nil {
		return nil, fmt.Errorf("listing the resource policies of projects/%s/regions/%s: %s", project, region, kernel.APIMessage(err))
	}
	out := make([]*WorkloadPolicy, 0, len(policies))
	for _, p := range policies {
		if p.GetWorkloadPolicy() == nil {
			continue
		}
		out = append(out, workloadpolicy.Of(project, region, p))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// NodePoolList is the sub-block node pools of a cluster, and the names of
// its other pools (a default pool, CPU pools), which gke_subblock_node_pool
// cannot manage.
type NodePoolList struct {
	Pools []*NodePool
	Other []string
}

// ListNodePools lists the cluster's node pools (one nodePools.list) and
// reads each that targets a reservation block or sub-block as
// ReadNodePool does (its nodes and partition from the inventory), sorted
// by name.
func (e *Engine) ListNodePools(ctx context.Context, project, location, cluster string) (*NodePoolList, error) {
	clusterName := fmt.Sprintf("projects/%s/locations/%s/clusters/%s", project, location, cluster)
	// The shared list, so that each pool's read below is served from it:
	// one nodePools.list in all.
	pools, err := e.reads.NodePools(ctx, clusterName)
	if err != nil {
		return nil, fmt.Errorf("listing the node pools of %s: %s", clusterName, kernel.APIMessage(err))
	}
	out := &NodePoolList{}
	for _, p := range pools {
		id := clusterName + "/nodePools/" + p.Name
		if poolState(id, p).Block == "" {
			out.Other = append(out.Other, p.Name)
			continue
		}
		pool, err := e.ReadNodePool(ctx, id)
		if errors.Is(err, ErrNotFound) {
			continue // deleted since the list
		}
		if err != nil {
			return nil, err
		}
		out.Pools = append(out.Pools, pool)
	}
	sort.Slice(out.Pools, func(i, j int) bool { return out.Pools[i].Name < out.Pools[j].Name })
	sort.Strings(out.Other)
	return out, nil
}

// ListedSlice is a Slice of the cluster as a list reports it.
type ListedSlice struct {
	*Slice
	// DeviceAccess is how its partitions' nodes offer the chips.
	DeviceAccess DeviceAccess
	// NotImportable, when set, says why gke_tpu_slice cannot import the
	// Slice: Kueue's slice admission check made it for a workload, and
	// deletes it with the workload.
	NotImportable error
}

// ListSlices lists the cluster's Slices (they are cluster-scoped), sorted
// by name. Slices that Kueue made are listed with NotImportable set.
func (e *Engine) ListSlices(ctx context.Context) ([]ListedSlice, error) {
	slices, err := e.sliceClient(ctx)
	if err != nil {
		return nil, err
	}
	list, err := slices.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing Slices: %w", err)
	}
	out := make([]ListedSlice, 0, len(list.Items))
	for i := range list.Items {
		s := clusterread.SliceOf(&list.Items[i])
		l := ListedSlice{Slice: s, DeviceAccess: e.accessOf(ctx, s.Topology, s.PartitionIDs)}
		if s.KueueWorkload != "" {
			l.NotImportable = KueueOwnedError(s)
		}
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
