package clusterread

import (
	"maps"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/engine/enginetest"
	"github.com/dynslice/terraform-provider-gke/internal/topology"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// PlacesOf places every partition where grouping does, in every shape,
// and leaves out IDs that no node carries.
func TestPlacesOfAgreesWithGrouping(t *testing.T) {
	t.Parallel()
	nodes, slices := enginetest.FullPodAllShapes()
	// A node without a pool label and one without topology labels, so
	// that "the first node that has one" is exercised.
	nodes[0].Labels = cloneLabels(nodes[0].Labels)
	delete(nodes[0].Labels, wellknown.LabelNodePool)
	nodes[17].Labels = cloneLabels(nodes[17].Labels)
	delete(nodes[17].Labels, wellknown.LabelTopologyBlock)
	inv := Fixed(nodes, slices)
	for _, shape := range topology.PartitionShapes {
		parts, err := inv.PartitionsOf(t.Context(), shape)
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{"no-such-partition", ""}
		for _, p := range parts {
			ids = append(ids, p.ID)
		}
		places, err := inv.PlacesOf(t.Context(), shape, ids)
		if err != nil {
			t.Fatal(err)
		}
		if len(places) != len(ids)-2 {
			t.Errorf("%s: %d places for %d known IDs", shape, len(places), len(ids)-2)
		}
		for _, p := range parts {
			got := places[p.ID]
			if want := (PartitionPlace{Pool: p.NodePool, Block: p.Block, SubBlock: p.SubBlock}); got != want {
				t.Errorf("%s partition %s placed at %+v, grouping says %+v", shape, p.ID, got, want)
			}
		}
	}
	if places, err := inv.PlacesOf(t.Context(), "3x3x3", []string{"x"}); err != nil || len(places) != 0 {
		t.Errorf("placesOf of a shape that is not a partition shape = %v, %v; want nothing", places, err)
	}
}

func cloneLabels(in map[string]string) map[string]string { return maps.Clone(in) }
