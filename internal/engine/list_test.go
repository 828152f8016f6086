package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"cloud.google.com/go/compute/apiv1/computepb"
	container "google.golang.org/api/container/v1"
	"google.golang.org/protobuf/proto"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
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
	c := enginetest.NewCompute()
	workload := func(name string) *computepb.ResourcePolicy {
		return &computepb.ResourcePolicy{Name: proto.String(name), WorkloadPolicy: &computepb.ResourcePolicyWorkloadPolicy{
			Type: proto.String(PolicyHighThroughput), AcceleratorTopology: proto.String("4x4x4"), AcceleratorTopologyMode: proto.String(PolicyProvisionOnly),
		}}
	}
	c.Policies[enginetest.Project+"/us-central1/wp-b"] = workload("wp-b")
	c.Policies[enginetest.Project+"/us-central1/wp-a"] = workload("wp-a")
	c.Policies[enginetest.Project+"/us-central1/snapshots"] = &computepb.ResourcePolicy{Name: proto.String("snapshots"), SnapshotSchedulePolicy: &computepb.ResourcePolicySnapshotSchedulePolicy{}}
	c.Policies[enginetest.Project+"/europe-west4/wp-c"] = workload("wp-c")

	if _, err := newTestEngine(c, enginetest.NewGKE(), nil).ListWorkloadPolicies(context.Background(), enginetest.Project, "us-central1"); !errors.Is(err, ErrListUnsupported) {
		t.Errorf("a Compute that cannot list: %v, want ErrListUnsupported", err)
	}
	e := newTestEngine(c, enginetest.NewGKE(), nil)
	e.compute = listingCompute{c}
	got, err := e.ListWorkloadPolicies(context.Background(), enginetest.Project, "us-central1")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		names = append(names, p.Name)
		if p.Project != enginetest.Project || p.Region != "us-central1" || p.AcceleratorTopologyMode != PolicyProvisionOnly {
			t.Errorf("policy %s listed as %+v", p.Name, p.Spec)
		}
	}
	if !slices.Equal(names, []string{"wp-a", "wp-b"}) {
		t.Errorf("listed %v, want the region's workload policies wp-a, wp-b (not its snapshot schedule, not another region's)", names)
	}
}

func TestListNodePools(t *testing.T) {
	g := enginetest.NewGKE()
	cluster := "projects/" + enginetest.Project + "/locations/us-central1/clusters/c"
	pool := func(name, reservation string) *container.NodePool {
		p := &container.NodePool{Name: name, Status: "RUNNING", InitialNodeCount: 16, Config: &container.NodeConfig{MachineType: "tpu7x-standard-4t"}}
		if reservation != "" {
			p.Config.ReservationAffinity = &container.ReservationAffinity{ConsumeReservationType: "SPECIFIC_RESERVATION", Values: []string{reservation}}
		}
		return p
	}
	path := "projects/" + enginetest.Project + "/reservations/" + enginetest.Reservation + "/reservationBlocks/" + enginetest.Block
	g.Pools[cluster+"/nodePools/tpu-b"] = pool("tpu-b", path+"/reservationSubBlocks/sb-b")
	g.Pools[cluster+"/nodePools/tpu-a"] = pool("tpu-a", path)
	g.Pools[cluster+"/nodePools/default-pool"] = pool("default-pool", "")
	e := newTestEngine(enginetest.NewCompute(), g, fake.NewClientset())
	got, err := e.ListNodePools(context.Background(), enginetest.Project, "us-central1", "c")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got.Pools {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"tpu-a", "tpu-b"}) || !slices.Equal(got.Other, []string{"default-pool"}) {
		t.Errorf("listed %v and other %v, want tpu-a, tpu-b and other default-pool", names, got.Other)
	}
	if got.Pools[1].SubBlock != "sb-b" || got.Pools[1].ID != cluster+"/nodePools/tpu-b" {
		t.Errorf("tpu-b listed as %+v", got.Pools[1])
	}
	// One nodePools.list serves the list and every pool's read.
	lists := g.Count("listNodePools")
	g.Mu.Lock()
	defer g.Mu.Unlock()
	if lists != 1 || g.PoolGets != 0 {
		t.Errorf("%d nodePools.list and %d nodePools.get, want 1 list and no get", lists, g.PoolGets)
	}
}

func TestListSlicesMarksKueueMade(t *testing.T) {
	theirs := enginetest.Slice("kueue-made", "p2")
	theirs.SetAnnotations(map[string]string{wellknown.AnnotationOwnerWorkloadName: "train", wellknown.AnnotationOwnerWorkloadNamespace: "team"})
	dyn := enginetest.NewDynamic(enginetest.Slice("mine", "p1"), theirs)
	e := newTestEngine(enginetest.NewCompute(), enginetest.NewGKE(), nil,
		withClients(func(context.Context) (Cluster, error) { return kernel.NewCluster(fake.NewClientset(), dyn), nil }))
	got, err := e.ListSlices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Name != "kueue-made" || got[1].Name != "mine" {
		t.Fatalf("listed %+v, want kueue-made and mine", got)
	}
	if got[0].NotImportable == nil || !errors.Is(got[0].NotImportable, ErrKueueOwned) || got[0].KueueWorkload != "team/train" {
		t.Errorf("Kueue's Slice: not importable %v, workload %q", got[0].NotImportable, got[0].KueueWorkload)
	}
	if got[1].NotImportable != nil || !slices.Equal(got[1].PartitionIDs, []string{"p1"}) {
		t.Errorf("mine: not importable %v, partitions %v", got[1].NotImportable, got[1].PartitionIDs)
	}
}
