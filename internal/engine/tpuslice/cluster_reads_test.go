package tpuslice

import (
	"testing"

	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
)

// The reads of a cluster's node pools share one list, within its
// staleness bound; block resolution in a selection's settle loop takes it
// too; a fresh read always lists; a change of a pool drops the list.
func TestClusterReadsShareTheNodePoolList(t *testing.T) {
	t.Parallel()
	const cluster = "projects/p/locations/l/clusters/c"
	g := enginetest.NewGKE()
	g.Pools[cluster+"/nodePools/np-1"] = &container.NodePool{Name: "np-1", Config: &container.NodeConfig{ReservationAffinity: &container.ReservationAffinity{
		Values: []string{"projects/p/reservations/res-1/reservationBlocks/block-a/reservationSubBlocks/s"},
	}}}
	e := newSlicesOver(g, nil, boundTo(cluster))
	lists := func() int {
		n := 0
		for _, ev := range g.EventLog() {
			if ev == "listNodePools" {
				n++
			}
		}
		return n
	}
	parts := syncedPartitions(t)
	for range 3 { // three rounds of a settle loop
		if got, err := e.resolveBlock(t.Context(), PartitionSelector{Block: "res-1/block-a"}, parts); err != nil || got != "b1" {
			t.Fatalf("resolveBlock = %q, %v; want b1", got, err)
		}
	}
	if _, err := e.reads.NodePools(t.Context(), cluster); err != nil {
		t.Fatal(err)
	}
	if n := lists(); n != 1 {
		t.Errorf("%d nodePools.list for three resolutions and a read, want 1", n)
	}
	if _, err := e.reads.FreshNodePools(t.Context(), cluster); err != nil {
		t.Fatal(err)
	}
	if n := lists(); n != 2 {
		t.Errorf("%d nodePools.list after a fresh read, want 2", n)
	}
	e.reads.PoolsChanged(cluster + "/nodePools/np-1")
	if _, err := e.reads.NodePools(t.Context(), cluster); err != nil {
		t.Fatal(err)
	}
	if n := lists(); n != 3 {
		t.Errorf("%d nodePools.list after a pool changed, want 3", n)
	}
}
