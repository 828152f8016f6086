package day2

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	"google.golang.org/protobuf/proto"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
	"github.com/dynslice/terraform-provider-gke/internal/engine/workloadpolicy"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
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
			Type: proto.String(workloadpolicy.HighThroughput), AcceleratorTopology: proto.String("4x4x4"), AcceleratorTopologyMode: proto.String(workloadpolicy.ProvisionOnly),
		}}
	}
	c.Policies[enginetest.Project+"/us-central1/wp-b"] = workload("wp-b")
	c.Policies[enginetest.Project+"/us-central1/wp-a"] = workload("wp-a")
	c.Policies[enginetest.Project+"/us-central1/snapshots"] = &computepb.ResourcePolicy{Name: proto.String("snapshots"), SnapshotSchedulePolicy: &computepb.ResourcePolicySnapshotSchedulePolicy{}}
	c.Policies[enginetest.Project+"/europe-west4/wp-c"] = workload("wp-c")

	if _, err := newTestOps(c, nil, nil, failingFront{t}).ListWorkloadPolicies(context.Background(), enginetest.Project, "us-central1"); !errors.Is(err, ErrListUnsupported) {
		t.Errorf("a Compute that cannot list: %v, want ErrListUnsupported", err)
	}
	e := newTestOps(listingCompute{c}, nil, nil, failingFront{t})
	got, err := e.ListWorkloadPolicies(context.Background(), enginetest.Project, "us-central1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		names = append(names, p.Name)
		if p.Project != enginetest.Project || p.Region != "us-central1" || p.AcceleratorTopologyMode != workloadpolicy.ProvisionOnly {
			t.Errorf("policy %s listed as %+v", p.Name, p.Spec)
		}
	}
	if !slices.Equal(names, []string{"wp-a", "wp-b"}) {
		t.Errorf("listed %v, want the region's workload policies wp-a, wp-b (not its snapshot schedule, not another region's)", names)
	}
}

func TestListSlicesMarksKueueMade(t *testing.T) {
	t.Parallel()
	theirs := enginetest.Slice("kueue-made", "p2")
	theirs.SetAnnotations(map[string]string{wellknown.AnnotationOwnerWorkloadName: "train", wellknown.AnnotationOwnerWorkloadNamespace: "team"})
	dyn := enginetest.NewDynamic(enginetest.Slice("mine", "p1"), theirs)
	e := newTestOps(enginetest.NewCompute(), func(context.Context) (kernel.Cluster, error) { return kernel.NewCluster(fake.NewClientset(), dyn), nil },
		nil, accessFront{failingFront{t}})
	got, err := e.ListSlices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "kueue-made" || got[1].Name != "mine" {
		t.Fatalf("listed %+v, want kueue-made and mine", got)
	}
	if got[0].NotImportable == nil || !errors.Is(got[0].NotImportable, clusterread.ErrKueueOwned) || got[0].KueueWorkload != "team/train" {
		t.Errorf("Kueue's Slice: not importable %v, workload %q", got[0].NotImportable, got[0].KueueWorkload)
	}
	if got[1].NotImportable != nil || !slices.Equal(got[1].PartitionIDs, []string{"p1"}) {
		t.Errorf("mine: not importable %v, partitions %v", got[1].NotImportable, got[1].PartitionIDs)
	}
}

// accessFront answers every slice's device access as the device plugin.
type accessFront struct{ failingFront }

func (accessFront) AccessOf(context.Context, string, []string) clusterread.DeviceAccess {
	return clusterread.DevicePlugin
}
