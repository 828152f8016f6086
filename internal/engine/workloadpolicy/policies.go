package workloadpolicy

import (
	"context"
	"errors"
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

// Create inserts the policy and waits for the operation. started, when
// not nil, is called with the insert's operation as soon as Compute has
// accepted it, before the wait: from then on the policy may exist, or come
// to exist when the operation ends, even if the wait fails (its context
// ends first). An error that wraps a *kernel.OperationError is an insert
// that ended in failure: it made no policy.
func (p *Policies) Create(ctx context.Context, s Spec, started func(op string)) (*Policy, error) {
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
	if err == nil && started != nil {
		started(op.Name())
	}
	if err := p.wait(ctx, op, err); err != nil {
		if !kernel.ConflictAfterRetry(err) {
			return nil, fmt.Errorf("creating workload policy %s: %w", s.Path(), apiError{err})
		}
		return p.adopt(ctx, s)
	}
	return p.Read(ctx, s.Project, s.Region, s.Name)
}

// apiError is err shown as the API's own message (kernel.APIMessage),
// still wrapping it.
type apiError struct{ err error }

func (e apiError) Error() string { return kernel.APIMessage(e.err) }
func (e apiError) Unwrap() error { return e.err }

// InsertRunning reads the insert operation op of policy name, which a
// create started and did not see end: whether it is still running (the
// policy may yet come to exist), and its status. An operation Compute no
// longer has ended long ago.
func (p *Policies) InsertRunning(ctx context.Context, project, region, op string) (running bool, status string, err error) {
	got, err := p.compute.GetRegionOperation(ctx, project, region, op)
	if kernel.IsNotFound(err) {
		return false, "gone", nil
	}
	if err != nil {
		return false, "", fmt.Errorf("reading operation %s of region %s: %s", op, region, kernel.APIMessage(err))
	}
	s := got.State()
	return !s.Done, s.Status, nil
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
	_, err := p.delete(ctx, project, region, name)
	return err
}

// DeleteAfterInsert deletes a policy whose create did not see its insert,
// operation insertOp, end: when the policy does not exist (yet), it waits
// for that operation to end, then deletes what it made. An insert that
// ended in failure made nothing.
func (p *Policies) DeleteAfterInsert(ctx context.Context, project, region, name, insertOp string) error {
	gone, err := p.delete(ctx, project, region, name)
	if err != nil || !gone || insertOp == "" {
		return err
	}
	op, err := p.compute.GetRegionOperation(ctx, project, region, insertOp)
	if kernel.IsNotFound(err) {
		return nil // ended long ago
	}
	if err != nil {
		return fmt.Errorf("deleting workload policy projects/%s/regions/%s/resourcePolicies/%s: reading its insert, operation %s: %s",
			project, region, name, insertOp, kernel.APIMessage(err))
	}
	tflog.Info(ctx, "The policy is not there: waiting for its unfinished insert to end, then deleting what it made", map[string]any{"policy": name, "operation": insertOp})
	if err := p.wait(ctx, op, nil); err != nil {
		if isA[*kernel.OperationError](err) {
			return nil // it made nothing
		}
		return fmt.Errorf("deleting workload policy projects/%s/regions/%s/resourcePolicies/%s: waiting for its insert to end first: %w",
			project, region, name, apiError{err})
	}
	// Deleted again even when the insert had ended at the first delete:
	// it may have ended just after.
	_, err = p.delete(ctx, project, region, name)
	return err
}

// delete deletes the policy and waits; gone says it did not exist.
func (p *Policies) delete(ctx context.Context, project, region, name string) (gone bool, err error) {
	tflog.Info(ctx, "Deleting workload policy", map[string]any{"policy": fmt.Sprintf("projects/%s/regions/%s/resourcePolicies/%s", project, region, name)})
	op, err := p.compute.DeleteResourcePolicy(ctx, project, region, name)
	err = p.wait(ctx, op, err)
	if kernel.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("deleting workload policy projects/%s/regions/%s/resourcePolicies/%s: %w", project, region, name, apiError{err})
	}
	return false, nil
}

// isA is whether err is (or wraps) an error of type T.
func isA[T error](err error) bool {
	var t T
	return errors.As(err, &t)
}
