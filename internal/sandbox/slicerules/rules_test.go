package slicerules

import (
	"strings"
	"testing"
)

func TestParseTPU7x(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in                       string
		chips, hosts, partitions int
		family, shape            string
	}{
		{"4x4x4", 64, 16, 1, "super-slice", "4x4x4"},
		{"4x4x8", 128, 32, 2, "super-slice", "4x4x4"},
		{"4x8x8", 256, 64, 4, "super-slice", "4x4x4"},
		{"16x24x24", 9216, 2304, 144, "super-slice", "4x4x4"},
		{"4x4x576", 9216, 2304, 144, "super-slice", "4x4x4"},
		{"2x2x1", 4, 1, 1, "sub-slice", "2x2x1"},
		{"2x2x2", 8, 2, 1, "sub-slice", "2x2x2"},
		{"2x2x4", 16, 4, 1, "sub-slice", "2x2x4"},
		{"2x4x4", 32, 8, 1, "sub-slice", "2x4x4"},
	}
	for _, tc := range cases {
		topo, err := ParseTPU7x(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if topo.String() != tc.in || topo.Chips() != tc.chips || topo.Hosts() != tc.hosts || topo.Partitions() != tc.partitions ||
			topo.Family() != tc.family || topo.PartitionShape() != tc.shape {
			t.Errorf("%s: %s, %d chips, %d hosts, %d partitions, %s of %s", tc.in, topo, topo.Chips(), topo.Hosts(), topo.Partitions(), topo.Family(), topo.PartitionShape())
		}
	}
	refused := []struct{ in, detail string }{
		{"", "is not a TPU7x slice topology"},
		{"4x4", "is not a TPU7x slice topology"},
		{"4x4x4x4", "is not a TPU7x slice topology"},
		{"4X4X4", "is not a TPU7x slice topology"},
		{"4×4×4", "is not a TPU7x slice topology"},
		{" 4x4x4", "is not a TPU7x slice topology"},
		{"04x4x4", "is not a TPU7x slice topology"},
		{"0x4x4", "is not a TPU7x slice topology"},
		{"-4x4x4", "is not a TPU7x slice topology"},
		{"+4x4x4", "is not a TPU7x slice topology"},
		{"4x4x٤", "is not a TPU7x slice topology"},
		{"4x4x99999999999999999999", "alone exceeds the chips of a slice"},
		{"4x4x9220", "alone exceeds the chips of a slice"},
		{"4x4x6", "multiple of 4"},
		{"1x2x2", "multiple of 4"},
		{"4x2x2", "multiple of 4"},
		{"4x8x4", "non-decreasing order"},
		{"8x8x148", "9472 chips; a slice has at most 9216 chips"},
	}
	for _, tc := range refused {
		_, err := ParseTPU7x(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.detail) || !strings.HasPrefix(err.Error(), "topology ") {
			t.Errorf("%q: %v; want refused with %q", tc.in, err, tc.detail)
		}
	}
}

// The table's figures agree with one another and with its names.
func TestShapeTable(t *testing.T) {
	t.Parallel()
	if len(PartitionShapes) != 5 || PartitionShapes[4] != SubBlockShape || strings.Join(SubSliceShapes, " ") != "2x2x1 2x2x2 2x2x4 2x4x4" {
		t.Fatalf("shapes %v, sub-slices %v", PartitionShapes, SubSliceShapes)
	}
	for _, name := range PartitionShapes {
		s, _ := ShapeOf(name)
		topo, err := Parse(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Chips != topo.Chips() || s.Hosts*ChipsPerHost != s.Chips || s.PerSubBlock*s.Chips != ChipsPerPartition || s.SubSlice != (name != SubBlockShape) {
			t.Errorf("%+v does not add up", s)
		}
		if HostsOfShape(name) != s.Hosts || PartitionsPerSubBlock(name) != s.PerSubBlock {
			t.Errorf("%s: HostsOfShape %d, PartitionsPerSubBlock %d", name, HostsOfShape(name), PartitionsPerSubBlock(name))
		}
		if PartitionIDLabel(name) != "cloud.google.com/gke-tpu-partition-"+name+"-id" || PartitionStateLabel(name) != "cloud.google.com/gke-tpu-partition-"+name+"-state" {
			t.Errorf("%s: labels %s, %s", name, PartitionIDLabel(name), PartitionStateLabel(name))
		}
		// Each partition is a run of Hosts consecutive hosts.
		for h := range HostsPerSubBlock {
			if got := SubPartitionIndex(h, name); got != h/s.Hosts {
				t.Errorf("%s: host %d in partition %d", name, h, got)
			}
		}
	}
	for _, bad := range []string{"", "4x2x2", "4x4x8", "2x2x3"} {
		if HostsOfShape(bad) != 0 || PartitionsPerSubBlock(bad) != 0 || SubPartitionIndex(0, bad) != -1 {
			t.Errorf("%q is not a partition shape", bad)
		}
	}
	if SubPartitionIndex(-1, "2x2x1") != -1 || SubPartitionIndex(HostsPerSubBlock, "4x4x4") != -1 {
		t.Error("hosts outside 0..15 have no partition")
	}
}

func TestCheckPartitionIDs(t *testing.T) {
	t.Parallel()
	super, _ := ParseTPU7x("4x4x8")
	sub, _ := ParseTPU7x("2x2x2")
	cases := []struct {
		topo   Topology
		ids    []string
		detail string
	}{
		{super, []string{"a", "b"}, ""},
		{sub, []string{"a"}, ""},
		{super, []string{"a"}, "has 1 IDs: topology 4x4x8 (128 chips) needs exactly 2"},
		{sub, []string{"a", "b"}, "a 2x2x2 sub-slice lies in exactly 1 partition"},
		{super, []string{"a", " "}, "an empty ID"},
		{super, []string{"a", "a"}, `lists "a" more than once`},
	}
	for _, tc := range cases {
		err := tc.topo.CheckPartitionIDs(tc.ids)
		if (tc.detail == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.detail)) {
			t.Errorf("%s %q: %v; want %q", tc.topo, tc.ids, err, tc.detail)
		}
	}
}
