package nodepool

import (
	"context"
	"slices"
	"testing"

	container "google.golang.org/api/container/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
)

func TestListNodePools(t *testing.T) {
	t.Parallel()
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
	e := newTestPools(enginetest.NewCompute(), g, fake.NewClientset())
	got, err := e.List(context.Background(), enginetest.Project, "us-central1", "c")
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
