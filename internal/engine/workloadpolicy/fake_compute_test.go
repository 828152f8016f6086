package workloadpolicy

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/api/googleapi"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// fakeCompute is an in-memory Compute of resource policies; its other
// methods are not called (the nil kernel.Compute would panic).
type fakeCompute struct {
	kernel.Compute
	mu sync.Mutex

	policies map[string]*computepb.ResourcePolicy // project/region/name
	inserted []insertCall
	deleted  []string
	// Errors the policy calls return instead of doing their work.
	insertErr, getPolicyErr, deletePolicyErr error
}

type insertCall struct {
	project, region string
	policy          *computepb.ResourcePolicy
}

func newFakeCompute() *fakeCompute {
	return &fakeCompute{policies: map[string]*computepb.ResourcePolicy{}}
}

// newPolicies is the Policies New builds over c, waiting for operations
// that are done when they are answered.
func newPolicies(c *fakeCompute) *Policies {
	return New(c, func(_ context.Context, op kernel.Operation, err error) error {
		if err != nil {
			return err
		}
		if s := op.State(); s.Failed {
			return &kernel.OperationError{Name: op.Name(), Message: s.Message}
		}
		return nil
	})
}

func notFound(what string) error {
	return &googleapi.Error{Code: http.StatusNotFound, Message: fmt.Sprintf("The resource '%s' was not found", what)}
}

func (c *fakeCompute) InsertResourcePolicy(_ context.Context, project, region string, policy *computepb.ResourcePolicy) (kernel.Operation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.insertErr != nil {
		return nil, c.insertErr
	}
	c.inserted = append(c.inserted, insertCall{project: project, region: region, policy: proto.Clone(policy).(*computepb.ResourcePolicy)})
	stored := proto.Clone(policy).(*computepb.ResourcePolicy)
	stored.Id = proto.Uint64(4242424242)
	stored.Region = proto.String("https://www.googleapis.com/compute/v1/projects/" + project + "/regions/" + region)
	stored.SelfLink = proto.String(fmt.Sprintf("https://www.googleapis.com/compute/v1/projects/%s/regions/%s/resourcePolicies/%s", project, region, policy.GetName()))
	stored.Status = proto.String("READY")
	c.policies[project+"/"+region+"/"+policy.GetName()] = stored
	return doneOperation("operation-insert"), nil
}

func (c *fakeCompute) GetResourcePolicy(_ context.Context, project, region, name string) (*computepb.ResourcePolicy, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.getPolicyErr != nil {
		return nil, c.getPolicyErr
	}
	p, ok := c.policies[project+"/"+region+"/"+name]
	if !ok {
		return nil, notFound("projects/" + project + "/regions/" + region + "/resourcePolicies/" + name)
	}
	return proto.Clone(p).(*computepb.ResourcePolicy), nil
}

func (c *fakeCompute) DeleteResourcePolicy(_ context.Context, project, region, name string) (kernel.Operation, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deleted = append(c.deleted, project+"/"+region+"/"+name)
	if c.deletePolicyErr != nil {
		return nil, c.deletePolicyErr
	}
	key := project + "/" + region + "/" + name
	if _, ok := c.policies[key]; !ok {
		return nil, notFound("projects/" + project + "/regions/" + region + "/resourcePolicies/" + name)
	}
	delete(c.policies, key)
	return doneOperation("operation-delete"), nil
}

// doneOperation is an operation DONE in the answer of the call that
// started it.
type doneOperation string

func (o doneOperation) Name() string { return string(o) }

func (doneOperation) State() kernel.OperationState {
	return kernel.OperationState{Done: true, Status: "DONE"}
}

func (doneOperation) Poll(context.Context) error { return nil }
