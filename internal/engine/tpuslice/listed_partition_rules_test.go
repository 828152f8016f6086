package tpuslice

import (
	"context"
	"errors"
	"testing"

	container "google.golang.org/api/container/v1"

	"github.com/dynslice/terraform-provider-gke/internal/engine/clusterread"
	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// poolOn is a node pool of cluster c targeting sub-block sb of block of
// reservation res.
func poolOn(g *enginetest.GKE, c, name, res, block, sb string) {
	g.Pools[c+"/nodePools/"+name] = &container.NodePool{Name: name, InitialNodeCount: 16, Status: "RUNNING",
		Config: &container.NodeConfig{ReservationAffinity: &container.ReservationAffinity{
			ConsumeReservationType: "SPECIFIC_RESERVATION",
			Values:                 []string{"projects/p/reservations/" + res + "/reservationBlocks/" + block + "/reservationSubBlocks/" + sb},
		}}}
}

// Listed partitions of another shape, or of two blocks, break a rule no
// apply changes; partitions of one block, of the slice's shape, or not in
// the cluster yet, do not.
func TestCheckListedRules(t *testing.T) {
	t.Parallel()
	const cluster = "projects/p/locations/l/clusters/c"
	nodes := append(enginetest.SubBlockNodes("sba", "pool-a", "blk1"), enginetest.SubBlockNodes("sbb", "pool-b", "blk2")...)
	nodes = append(nodes, enginetest.SubBlockNodes("sbc", "pool-c", "blk1")...)
	g := enginetest.NewGKE()
	poolOn(g, cluster, "pool-a", "res", "block-a", "sba")
	poolOn(g, cluster, "pool-b", "res", "block-b", "sbb")
	e := planEngine(clusterread.Fixed(nodes, nil), withGKE(g), boundTo(cluster))
	ctx := context.Background()
	for name, ids := range map[string][]string{
		"one block": {enginetest.SubID("sba", "4x4x4", 0), enginetest.SubID("sbc", "4x4x4", 0)},
		"not yet":   {enginetest.SubID("sba", "4x4x4", 0), "made-by-this-apply"},
	} {
		if err := e.checkListedRules(ctx, enginetest.Topo(t, "4x4x8"), ids); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	err := e.checkListedRules(ctx, enginetest.Topo(t, "4x4x8"), []string{enginetest.SubID("sba", "4x4x4", 0), enginetest.SubID("sbb", "4x4x4", 0)})
	var rule *ListedPartitionsError
	if !errors.As(err, &rule) || rule.Rule != ListedTwoBlocks {
		t.Fatalf("two blocks: %v", err)
	}
	testsupport.WantContains(t, err, "the listed partitions are in 2 reservation blocks",
		"reservation block res/block-a (cloud.google.com/gce-topology-block blk1): sba-4x4x4-0 (node pool pool-a)",
		"reservation block res/block-b (cloud.google.com/gce-topology-block blk2): sbb-4x4x4-0 (node pool pool-b)",
		"must all be in one reservation block")
	err = e.checkListedRules(ctx, enginetest.Topo(t, "2x2x2"), []string{enginetest.SubID("sba", "4x4x4", 0)})
	if !errors.As(err, &rule) || rule.Rule != ListedOtherShape {
		t.Fatalf("another shape: %v", err)
	}
	testsupport.WantContains(t, err, "partition sba-4x4x4-0 is a 4x4x4 partition (node pool pool-a), but a 2x2x2 sub-slice lists 2x2x2 partitions",
		`data source gke_partitions with shape = "2x2x2"`)
}

// partition_selector.block names a reservation block that pools target
// (now or in the same plan) or a physical block; any other is an error
// that names the reservation blocks the pools target.
func TestCheckSelectorBlock(t *testing.T) {
	t.Parallel()
	const cluster = "projects/p/locations/l/clusters/c"
	g := enginetest.NewGKE()
	poolOn(g, cluster, "pool-a", "res", "block-a", "sba")
	e := planEngine(clusterread.Fixed(enginetest.SubBlockNodes("sba", "pool-a", "blk1"), nil), withGKE(g), boundTo(cluster))
	ctx := context.Background()
	for _, block := range []string{"", "block-a", "res/block-a", "blk1"} {
		if err := e.checkSelectorBlock(ctx, PartitionSelector{Block: block}, nil); err != nil {
			t.Errorf("block %q: %v", block, err)
		}
	}
	if err := e.checkSelectorBlock(ctx, PartitionSelector{Block: "block-z"}, []string{"res/block-z"}); err != nil {
		t.Errorf("a block that a pool of the plan targets: %v", err)
	}
	err := e.checkSelectorBlock(ctx, PartitionSelector{Block: "block-z"}, []string{"res/block-y"})
	var unknown *SelectorBlockError
	if !errors.As(err, &unknown) {
		t.Fatalf("a block no pool targets: %v", err)
	}
	testsupport.WantContains(t, err, `partition_selector.block "block-z" names no reservation block that a node pool of cluster `+cluster,
		"The node pools of the cluster and of this plan target res/block-a, res/block-y: write one of those",
		`gke_subblock_node_pool with reservation_block = "block-z"`, "depends_on")
}
