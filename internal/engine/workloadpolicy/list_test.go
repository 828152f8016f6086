package workloadpolicy

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
)

// listingCompute is the fake Compute with resourcePolicies.list.
type listingCompute struct{ *enginetest.Compute }

func (c listingCompute) ListResourcePolicies(_ context.Context, project, region string) ([]*computepb.ResourcePolicy, error) {
	c.Mu.Lock()
	defer c.Mu.Unlock()
	var out []*computepb.ResourcePolicy
	for key, p := range c.Policies {
		if strings.HasPrefix(key, project+"/"+region+"/") {
			out = append(out, p)
		}
	}
	return out, nil
}

func TestListWorkloadPolicies(t *testing.T) {
	t.Parallel()
	c := enginetest.NewCompute()
	workload := func(name string) *computepb.ResourcePolicy {
		return &computepb.ResourcePolicy{Name: proto.String(name), WorkloadPolicy: &computepb.ResourcePolicyWorkloadPolicy{
			Type: proto.String(HighThroughput), AcceleratorTopology: proto.String("4x4x4"), AcceleratorTopologyMode: proto.String(ProvisionOnly),
		}}
	}
	c.Policies[enginetest.Project+"/us-central1/wp-b"] = workload("wp-b")
	c.Policies[enginetest.Project+"/us-central1/wp-a"] = workload("wp-a")
	c.Policies[enginetest.Project+"/us-central1/snapshots"] = &computepb.ResourcePolicy{Name: proto.String("snapshots"), SnapshotSchedulePolicy: &computepb.ResourcePolicySnapshotSchedulePolicy{}}
	c.Policies[enginetest.Project+"/europe-west4/wp-c"] = workload("wp-c")

	if _, err := newPolicies(c).List(context.Background(), enginetest.Project, "us-central1"); !errors.Is(err, ErrListUnsupported) {
		t.Errorf("a Compute that cannot list: %v, want ErrListUnsupported", err)
	}
	got, err := New(listingCompute{c}, nil).List(context.Background(), enginetest.Project, "us-central1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		names = append(names, p.Name)
		if p.Project != enginetest.Project || p.Region != "us-central1" || p.AcceleratorTopologyMode != ProvisionOnly {
			t.Errorf("policy %s listed as %+v", p.Name, p.Spec)
		}
	}
	if !slices.Equal(names, []string{"wp-a", "wp-b"}) {
		t.Errorf("listed %v, want the region's workload policies wp-a, wp-b (not its snapshot schedule, not another region's)", names)
	}
}
