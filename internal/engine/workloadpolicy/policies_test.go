package workloadpolicy

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"github.com/googleapis/gax-go/v2/apierror"
	"google.golang.org/api/googleapi"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// newPolicies is the Policies New builds over c, waiting for operations
// that are done when they are answered.
func newPolicies(c *enginetest.Compute) *Policies {
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

func TestCreateWorkloadPolicy(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute()
	e := newPolicies(c)
	got, err := e.Create(t.Context(), validPolicy(), nil)
	if err != nil {
		t.Fatalf("CreateWorkloadPolicy: %v", err)
	}
	if len(c.Inserted) != 1 {
		t.Fatalf("%d inserts, want 1", len(c.Inserted))
	}
	call := c.Inserted[0]
	if call.Project != testProject || call.Region != testRegion {
		t.Errorf("inserted into %s/%s, want %s/%s", call.Project, call.Region, testProject, testRegion)
	}
	p := call.Policy
	if p.GetName() != "slice-policy" || p.GetDescription() != "dynamic slicing" {
		t.Errorf("inserted name, description = %q, %q", p.GetName(), p.GetDescription())
	}
	wp := p.GetWorkloadPolicy()
	if wp.GetType() != "HIGH_THROUGHPUT" || wp.GetAcceleratorTopology() != "4x4x4" || wp.GetAcceleratorTopologyMode() != "PROVISION_ONLY" {
		t.Errorf("inserted workload policy = %v, want HIGH_THROUGHPUT 4x4x4 PROVISION_ONLY", wp)
	}
	if p.GroupPlacementPolicy != nil || p.SnapshotSchedulePolicy != nil || p.InstanceSchedulePolicy != nil || p.Region != nil {
		t.Errorf("inserted policy sets more than a workload policy: %v", p)
	}

	want := &Policy{
		Spec:     validPolicy(),
		ID:       "4242424242",
		SelfLink: "https://www.googleapis.com/compute/v1/projects/proj/regions/us-central1/resourcePolicies/slice-policy",
		Status:   "READY",
	}
	if *got != *want {
		t.Errorf("CreateWorkloadPolicy returned\n%+v\nwant\n%+v", *got, *want)
	}
}

func TestCreateWorkloadPolicyLeavesUnsetFieldsOut(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute()
	e := newPolicies(c)
	s := Spec{Project: testProject, Region: testRegion, Name: "ha", Type: "HIGH_AVAILABILITY"}
	got, err := e.Create(t.Context(), s, nil)
	if err != nil {
		t.Fatalf("CreateWorkloadPolicy: %v", err)
	}
	p := c.Inserted[0].Policy
	if p.Description != nil || p.WorkloadPolicy.AcceleratorTopology != nil || p.WorkloadPolicy.AcceleratorTopologyMode != nil {
		t.Errorf("inserted %v: unset description, topology and mode must be absent, not empty strings", p)
	}
	if got.Type != "HIGH_AVAILABILITY" || got.AcceleratorTopology != "" || got.Description != "" {
		t.Errorf("read back %+v", got)
	}
}

func TestCreateWorkloadPolicyErrors(t *testing.T) {
	t.Parallel()
	t.Run("invalid spec is not sent", func(t *testing.T) {
		t.Parallel()
		c := enginetest.NewCompute()
		s := validPolicy()
		s.Type = "HIGH_AVAILABILITY"
		_, err := newPolicies(c).Create(t.Context(), s, nil)
		testsupport.WantContains(t, err, "only allowed with type HIGH_THROUGHPUT")
		if len(c.Inserted) != 0 {
			t.Errorf("an invalid policy was inserted: %v", c.Inserted)
		}
	})
	t.Run("insert fails with the API's message", func(t *testing.T) {
		t.Parallel()
		c := enginetest.NewCompute()
		c.InsertErr = &googleapi.Error{Code: http.StatusConflict, Message: "The resource 'slice-policy' already exists", Body: "{...raw body...}"}
		_, err := newPolicies(c).Create(t.Context(), validPolicy(), nil)
		testsupport.WantContains(t, err, "creating workload policy projects/proj/regions/us-central1/resourcePolicies/slice-policy: The resource 'slice-policy' already exists")
		if strings.Contains(err.Error(), "raw body") || strings.Contains(err.Error(), "googleapi:") {
			t.Errorf("error %q carries the client's wrapping, want the API's message only", err)
		}
	})
	t.Run("a 409 to a retried insert adopts the policy its first attempt made", func(t *testing.T) {
		t.Parallel()
		c := enginetest.NewCompute()
		e := newPolicies(c)
		if _, err := e.Create(t.Context(), validPolicy(), nil); err != nil {
			t.Fatal(err)
		}
		c.InsertErr = &kernel.RetriedCreateError{Attempts: 2, Err: &googleapi.Error{Code: http.StatusConflict, Message: "already exists"}}
		got, err := e.Create(t.Context(), validPolicy(), nil)
		if err != nil {
			t.Fatalf("CreateWorkloadPolicy after a lost answer: %v", err)
		}
		if got.Name != "slice-policy" || got.SelfLink == "" {
			t.Errorf("adopted %+v", got)
		}
	})
	t.Run("a 409 to a retried insert does not adopt a different policy", func(t *testing.T) {
		t.Parallel()
		c := enginetest.NewCompute()
		e := newPolicies(c)
		other := validPolicy()
		other.AcceleratorTopologyMode = ""
		other.AcceleratorTopology = ""
		if _, err := e.Create(t.Context(), other, nil); err != nil {
			t.Fatal(err)
		}
		c.InsertErr = &kernel.RetriedCreateError{Attempts: 2, Err: &googleapi.Error{Code: http.StatusConflict, Message: "already exists"}}
		_, err := e.Create(t.Context(), validPolicy(), nil)
		testsupport.WantContains(t, err, "a retried insert found a policy of that name that is not the one asked for", "it was not adopted")
	})
	t.Run("insert fails with a plain error", func(t *testing.T) {
		t.Parallel()
		c := enginetest.NewCompute()
		c.InsertErr = errors.New("operation failed: QUOTA 'RESOURCE_POLICIES' exceeded")
		_, err := newPolicies(c).Create(t.Context(), validPolicy(), nil)
		testsupport.WantContains(t, err, "creating workload policy", "QUOTA 'RESOURCE_POLICIES' exceeded")
	})
}

func TestReadWorkloadPolicy(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute()
	e := newPolicies(c)
	if _, err := e.Create(t.Context(), validPolicy(), nil); err != nil {
		t.Fatal(err)
	}
	got, err := e.Read(t.Context(), testProject, testRegion, "slice-policy")
	if err != nil {
		t.Fatalf("ReadWorkloadPolicy: %v", err)
	}
	if got.Name != "slice-policy" || got.Project != testProject || got.Region != testRegion || got.AcceleratorTopologyMode != "PROVISION_ONLY" {
		t.Errorf("ReadWorkloadPolicy = %+v", got)
	}

	_, err = e.Read(t.Context(), testProject, testRegion, "missing")
	if !errors.Is(err, kernel.ErrNotFound) {
		t.Errorf("reading a missing policy: err = %v, want kernel.ErrNotFound", err)
	}

	// A 404 wrapped by gax (as the Compute REST client returns it).
	wrapped, _ := apierror.FromError(&googleapi.Error{Code: http.StatusNotFound, Message: "gone"})
	c.GetPolicyErr = wrapped
	if _, err := e.Read(t.Context(), testProject, testRegion, "slice-policy"); !errors.Is(err, kernel.ErrNotFound) {
		t.Errorf("reading with a gax-wrapped 404: err = %v, want kernel.ErrNotFound", err)
	}

	c.GetPolicyErr = &googleapi.Error{Code: http.StatusForbidden, Message: "Required 'compute.resourcePolicies.get' permission"}
	_, err = e.Read(t.Context(), testProject, testRegion, "slice-policy")
	testsupport.WantContains(t, err, "reading workload policy projects/proj/regions/us-central1/resourcePolicies/slice-policy: Required 'compute.resourcePolicies.get' permission")
	if errors.Is(err, kernel.ErrNotFound) {
		t.Errorf("a 403 reads as kernel.ErrNotFound: %v", err)
	}
}

func TestReadWorkloadPolicyWithoutWorkloadPolicyBlock(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute()
	c.Policies["proj/us-central1/placement"] = &computepb.ResourcePolicy{
		Name:                 proto.String("placement"),
		GroupPlacementPolicy: &computepb.ResourcePolicyGroupPlacementPolicy{Collocation: proto.String("COLLOCATED")},
	}
	got, err := newPolicies(c).Read(t.Context(), testProject, testRegion, "placement")
	if err != nil {
		t.Fatalf("ReadWorkloadPolicy: %v", err)
	}
	if got.Type != "" || got.Name != "placement" || got.ID != "0" {
		t.Errorf("ReadWorkloadPolicy of a group placement policy = %+v, want no type", got)
	}
}

func TestDeleteWorkloadPolicy(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute()
	e := newPolicies(c)
	if _, err := e.Create(t.Context(), validPolicy(), nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Delete(t.Context(), testProject, testRegion, "slice-policy"); err != nil {
		t.Fatalf("DeleteWorkloadPolicy: %v", err)
	}
	if _, err := e.Read(t.Context(), testProject, testRegion, "slice-policy"); !errors.Is(err, kernel.ErrNotFound) {
		t.Errorf("after delete, read err = %v, want kernel.ErrNotFound", err)
	}
	if err := e.Delete(t.Context(), testProject, testRegion, "slice-policy"); err != nil {
		t.Errorf("deleting a policy already gone: %v, want nil", err)
	}
	if want := []string{"proj/us-central1/slice-policy", "proj/us-central1/slice-policy"}; strings.Join(c.Deleted, " ") != strings.Join(want, " ") {
		t.Errorf("deletes = %v, want %v", c.Deleted, want)
	}

	c.DeletePolicyErr = &googleapi.Error{Code: http.StatusBadRequest, Message: "The resource_policy resource 'slice-policy' is already being used by 'node-1'"}
	err := e.Delete(t.Context(), testProject, testRegion, "slice-policy")
	testsupport.WantContains(t, err, "deleting workload policy projects/proj/regions/us-central1/resourcePolicies/slice-policy: The resource_policy resource 'slice-policy' is already being used by 'node-1'")
}
