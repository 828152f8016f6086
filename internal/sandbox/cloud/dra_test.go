package cloud

import (
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/topology"
)

// The place of a host's devices: its block, its sub-block and its
// partition of every shape.
func TestDevicePlace(t *testing.T) {
	t.Parallel()
	sb := &SubBlockState{Reservation: "r", Block: "b", Name: "s"}
	place := DevicePlace(sb, 5)
	if place.Block != BlockTopologyID(sb) || place.SubBlock != SubBlockTopologyID(sb) {
		t.Errorf("place %+v; want block %s, sub-block %s", place, BlockTopologyID(sb), SubBlockTopologyID(sb))
	}
	if got, want := place.Partitions["2x2x2"], sb.SubPartitionID("2x2x2", topology.SubPartitionIndex(5, "2x2x2")); got != want {
		t.Errorf("partition 2x2x2 %q, want %q", got, want)
	}
}
