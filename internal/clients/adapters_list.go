package clients

import (
	"context"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/iterator"
)

// ListResourcePolicies lists the resource policies of a region, every page
// (resourcePolicies.list); it implements workloadpolicy.Lister.
func (a computeAdapter) ListResourcePolicies(ctx context.Context, project, region string) ([]*computepb.ResourcePolicy, error) {
	it := a.s.resourcePolicies.List(ctx, &computepb.ListResourcePoliciesRequest{Project: project, Region: region}, noRetry)
	var out []*computepb.ResourcePolicy
	for {
		p, err := it.Next()
		if err == iterator.Done {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
}
