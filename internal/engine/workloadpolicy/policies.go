package workloadpolicy

import (
	"context"
	"fmt"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// WaitFunc waits for a Compute operation started by a call that answered
// op and err, and returns the operation's failure or err.
type WaitFunc func(ctx context.Context, op kernel.Operation, err error) error

// Policies creates, reads and deletes workload policies.
type Policies struct {
	compute kernel.Compute
	wait    WaitFunc
}

// New returns the workload policies of compute, whose operations wait
// waits for.
func New(compute kernel.Compute, wait WaitFunc) *Policies {
	return &Policies{compute: compute, wait: wait}
}

// Create inserts the policy and waits for the operation.
func (p *Policies) Create(ctx context.Context, s Spec) (*Policy, error) {
	if err := Check(s); err != nil {
		return nil, err
	}
	wp := &computepb.ResourcePolicyWorkloadPolicy{Type: proto.String(s.Type)}
	if s.AcceleratorTopology != "" {
		wp.AcceleratorTopology = proto.String(s.AcceleratorTopology)
	}
	if s.AcceleratorTopologyMode != "" {
		wp.AcceleratorTopologyMode = proto.String(s.AcceleratorTopologyMode)
	}
	policy := &computepb.ResourcePolicy{Name: proto.String(s.Name), WorkloadPolicy: wp}
	if s.Description != "" {
		policy.Description = proto.String(s.Description)
	}
	tflog.Info(ctx, "Creating workload policy", map[string]any{"policy": s.Path(), "type": s.Type, "topology": s.AcceleratorTopology, "mode": s.AcceleratorTopologyMode})
	op, err := p.compute.InsertResourcePolicy(ctx, s.Project, s.Region, policy)
	if err := p.wait(ctx, op, err); err != nil {
		if !kernel.ConflictAfterRetry(err) {
			return nil, fmt.Errorf("creating workload policy %s: %s", s.Path(), kernel.APIMessage(err))
		}
		return p.adopt(ctx, s)
	}
	return p.Read(ctx, s.Project, s.Region, s.Name)
}

// adopt takes the policy that a retried insert found made by its first
// attempt, when it is the policy asked for.
func (p *Policies) adopt(ctx context.Context, s Spec) (*Policy, error) {
	got, err := p.Read(ctx, s.Project, s.Region, s.Name)
	if err != nil {
		return nil, fmt.Errorf("creating workload policy %s: a retried insert found it existing, but %w", s.Path(), err)
	}
	if got.Type != s.Type || got.AcceleratorTopology != s.AcceleratorTopology || got.AcceleratorTopologyMode != s.AcceleratorTopologyMode {
		return nil, fmt.Errorf("creating workload policy %s: a retried insert found a policy of that name that is not the one asked for "+
			"(type %s, topology %s, mode %s); it was not adopted: import it or choose another name",
			s.Path(), got.Type, got.AcceleratorTopology, got.AcceleratorTopologyMode)
	}
	tflog.Warn(ctx, "Adopted workload policy: the insert was applied, its answer was lost, and the retry found the policy", map[string]any{"policy": s.Path()})
	return got, nil
}

// Read returns the policy, or kernel.ErrNotFound.
func (p *Policies) Read(ctx context.Context, project, region, name string) (*Policy, error) {
	got, err := p.compute.GetResourcePolicy(ctx, project, region, name)
	if kernel.IsNotFound(err) {
		return nil, kernel.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading workload policy projects/%s/regions/%s/resourcePolicies/%s: %s", project, region, name, kernel.APIMessage(err))
	}
	return Of(project, region, got), nil
}

// Delete deletes the policy and waits; a policy already gone is not an
// error.
func (p *Policies) Delete(ctx context.Context, project, region, name string) error {
	tflog.Info(ctx, "Deleting workload policy", map[string]any{"policy": fmt.Sprintf("projects/%s/regions/%s/resourcePolicies/%s", project, region, name)})
	op, err := p.compute.DeleteResourcePolicy(ctx, project, region, name)
	err = p.wait(ctx, op, err)
	if err != nil && !kernel.IsNotFound(err) {
		return fmt.Errorf("deleting workload policy projects/%s/regions/%s/resourcePolicies/%s: %s", project, region, name, kernel.APIMessage(err))
	}
	return nil
}
