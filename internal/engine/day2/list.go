package day2

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
// generated configuration. The node pool list is in list_pools.go.

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
func (o *Ops) ListWorkloadPolicies(ctx context.Context, project, region string) ([]*workloadpolicy.Policy, error) {
	lister, ok := o.compute.(ResourcePolicyLister)
	if !ok {
		return nil, ErrListUnsupported
	}
	policies, err := lister.ListResourcePolicies(ctx, project, region)
	if err != nil {
		return nil, fmt.Errorf("listing the resource policies of projects/%s/regions/%s: %s", project, region, kernel.APIMessage(err))
	}
	out := make([]*workloadpolicy.Policy, 0, len(policies))
	for _, p := range policies {
		if p.GetWorkloadPolicy() == nil {
			continue
		}
		out = append(out, workloadpolicy.Of(project, region, p))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ListedSlice is a Slice of the cluster as a list reports it.
type ListedSlice struct {
	*clusterread.Slice
	// DeviceAccess is how its partitions' nodes offer the chips.
	DeviceAccess clusterread.DeviceAccess
	// NotImportable, when set, says why gke_tpu_slice cannot import the
	// Slice: Kueue's slice admission check made it for a workload, and
	// deletes it with the workload.
	NotImportable error
}

// ListSlices lists the cluster's Slices (they are cluster-scoped), sorted
// by name. Slices that Kueue made are listed with NotImportable set.
func (o *Ops) ListSlices(ctx context.Context) ([]ListedSlice, error) {
	c, err := o.cluster(ctx)
	if err != nil {
		return nil, err
	}
	list, err := c.Slices().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing Slices: %w", err)
	}
	out := make([]ListedSlice, 0, len(list.Items))
	for i := range list.Items {
		s := clusterread.SliceOf(&list.Items[i])
		l := ListedSlice{Slice: s, DeviceAccess: o.front.AccessOf(ctx, s.Topology, s.PartitionIDs)}
		if s.KueueWorkload != "" {
			l.NotImportable = clusterread.KueueOwnedError(s)
		}
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
