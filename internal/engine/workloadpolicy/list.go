package workloadpolicy

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"cloud.google.com/go/compute/apiv1/computepb"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// Lister lists a region's resource policies. The Compute client may
// implement it; List needs it.
type Lister interface {
	ListResourcePolicies(ctx context.Context, project, region string) ([]*computepb.ResourcePolicy, error)
}

// ErrListUnsupported says that the Compute client cannot list resource
// policies.
var ErrListUnsupported = errors.New("this Compute client cannot list resource policies")

// List returns the workload policies of a region (resource policies of
// other kinds, such as snapshot schedules, are left out), sorted by name,
// as Read reports each: what `terraform query` shows of
// gke_workload_policy.
func (p *Policies) List(ctx context.Context, project, region string) ([]*Policy, error) {
	lister, ok := p.compute.(Lister)
	if !ok {
		return nil, ErrListUnsupported
	}
	policies, err := lister.ListResourcePolicies(ctx, project, region)
	if err != nil {
		return nil, fmt.Errorf("listing the resource policies of projects/%s/regions/%s: %s", project, region, kernel.APIMessage(err))
	}
	out := make([]*Policy, 0, len(policies))
	for _, rp := range policies {
		if rp.GetWorkloadPolicy() == nil {
			continue
		}
		out = append(out, Of(project, region, rp))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
