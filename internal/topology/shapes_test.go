package topology

import (
	"strings"
	"testing"
)

func TestShapeArithmetic(t *testing.T) {
	cases := []struct {
		shape         string
		hosts, per    int
		idLabel       string
		subSlice      bool
		minGKEVersion string
	}{
		{"2x2x1", 1, 16, "cloud.google.com/gke-tpu-partition-2x2x1-id", true, MinVersionSubSlice},
		{"2x2x2", 2, 8, "cloud.google.com/gke-tpu-partition-2x2x2-id", true, MinVersionSubSlice},
		{"2x2x4", 4, 4, "cloud.google.com/gke-tpu-partition-2x2x4-id", true, MinVersionSubSlice},
		{"2x4x4", 8, 2, "cloud.google.com/gke-tpu-partition-2x4x4-id", true, MinVersionSubSlice},
		{"4x4x4", 16, 1, "cloud.google.com/gke-tpu-partition-4x4x4-id", false, MinVersionSuperSlice},
	}
	for _, tc := range cases {
		if got := HostsOfShape(tc.shape); got != tc.hosts {
			t.Errorf("HostsOfShape(%s) = %d, want %d", tc.shape, got, tc.hosts)
		}
		if got := PartitionsPerSubBlock(tc.shape); got != tc.per {
			t.Errorf("PartitionsPerSubBlock(%s) = %d, want %d", tc.shape, got, tc.per)
		}
		if got := PartitionIDLabel(tc.shape); got != tc.idLabel {
			t.Errorf("PartitionIDLabel(%s) = %q", tc.shape, got)
		}
		if got := PartitionStateLabel(tc.shape); got != strings.TrimSuffix(tc.idLabel, "-id")+"-state" {
			t.Errorf("PartitionStateLabel(%s) = %q", tc.shape, got)
		}
		topo, err := ParseTPU7x(tc.shape)
		if err != nil {
			t.Fatal(err)
		}
		if topo.SubSlice() != tc.subSlice || topo.PartitionShape() != tc.shape || topo.MinGKEVersion() != tc.minGKEVersion {
			t.Errorf("%s: SubSlice %v PartitionShape %s MinGKEVersion %s", tc.shape, topo.SubSlice(), topo.PartitionShape(), topo.MinGKEVersion())
		}
	}
	for _, bad := range []string{"", "4x4x8", "1x2x2", "2x2x3"} {
		if HostsOfShape(bad) != 0 || PartitionsPerSubBlock(bad) != 0 || SubPartitionIndex(0, bad) != -1 {
			t.Errorf("%q is not a partition shape", bad)
		}
	}
	if big, _ := ParseTPU7x("4x8x8"); big.PartitionShape() != PartitionTopology || big.SubSlice() {
		t.Errorf("4x8x8 is a super-slice of 4x4x4 partitions")
	}
}

// Partitions nest: every partition of a shape lies inside exactly one
// partition of each larger shape, and the partitions of a shape tile the
// sub-block.
func TestSubPartitionNesting(t *testing.T) {
	for i, small := range PartitionShapes {
		hosts := map[int][]int{}
		for h := range HostsPerPartition {
			idx := SubPartitionIndex(h, small)
			hosts[idx] = append(hosts[idx], h)
		}
		if len(hosts) != PartitionsPerSubBlock(small) {
			t.Fatalf("%s: %d partitions per sub-block, want %d", small, len(hosts), PartitionsPerSubBlock(small))
		}
		for idx, hs := range hosts {
			if len(hs) != HostsOfShape(small) {
				t.Errorf("%s partition %d has hosts %v", small, idx, hs)
			}
			for _, large := range PartitionShapes[i:] {
				parent := SubPartitionIndex(hs[0], large)
				for _, h := range hs {
					if SubPartitionIndex(h, large) != parent {
						t.Errorf("%s partition %d spans two %s partitions", small, idx, large)
					}
				}
			}
		}
	}
	// The counts the GKE documentation gives for one 4x4x4.
	want := map[string]int{"2x4x4": 2, "2x2x4": 4, "2x2x2": 8, "2x2x1": 16}
	for shape, n := range want {
		if got := PartitionsPerSubBlock(shape); got != n {
			t.Errorf("a 4x4x4 holds %d %s, want %d", got, shape, n)
		}
	}
	if SubPartitionIndex(16, "2x2x1") != -1 || SubPartitionIndex(-1, "4x4x4") != -1 {
		t.Error("hosts outside 0..15 have no partition")
	}
}

func TestCheckPartitionCountSubSlice(t *testing.T) {
	topo, _ := ParseTPU7x("2x2x2")
	if err := topo.CheckPartitionIDs([]string{"abc"}); err != nil {
		t.Errorf("one ID: %v", err)
	}
	err := topo.CheckPartitionIDs([]string{"abc", "def"})
	if err == nil || !strings.Contains(err.Error(), `sub-slice topology "2x2x2" needs exactly 1 partition ID, a 2x2x2 partition (the cloud.google.com/gke-tpu-partition-2x2x2-id label`) {
		t.Errorf("two IDs: %v", err)
	}
}

func TestCompareGKEVersions(t *testing.T) {
	cases := []struct {
		a, b string
		want int
	}{
		{"1.36.0-gke.3712000", "1.36.0-gke.3712000", 0},
		{"1.36.0-gke.3711999", "1.36.0-gke.3712000", -1},
		{"1.36.1-gke.100", "1.36.0-gke.3712000", 1},
		{"1.35.9-gke.9999999", "1.36.0-gke.3712000", -1},
		{"1.37", "1.36.0-gke.3712000", 1},
		{"v1.36.0-gke.3712000", "1.36.0-gke.3712000", 0},
		{"1.36.0", "1.36.0-gke.1", -1},
		{"2.0.0-gke.1", "1.99.99-gke.99", 1},
	}
	for _, tc := range cases {
		got, err := CompareGKEVersions(tc.a, tc.b)
		if err != nil || got != tc.want {
			t.Errorf("CompareGKEVersions(%q, %q) = %d, %v; want %d", tc.a, tc.b, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "1", "1.x.0", "1.36.0-foo.1", "1.36.0-gke.x", "1.2.3.4"} {
		if _, err := CompareGKEVersions(bad, "1.36.0"); err == nil {
			t.Errorf("CompareGKEVersions(%q) accepted", bad)
		}
	}
}

func TestCheckGKEVersion(t *testing.T) {
	sub, _ := ParseTPU7x("2x2x2")
	super, _ := ParseTPU7x("4x4x8")
	err := sub.CheckGKEVersion("1.35.4-gke.1000000")
	if err == nil || !strings.Contains(err.Error(), "a sub-slice needs GKE 1.36.0-gke.3712000 or later, but the cluster runs 1.35.4-gke.1000000") {
		t.Errorf("sub-slice on 1.35.4: %v", err)
	}
	if err := sub.CheckGKEVersion("1.36.0-gke.3712000"); err != nil {
		t.Errorf("sub-slice on its first version: %v", err)
	}
	if err := super.CheckGKEVersion("1.35.4-gke.1000000"); err != nil {
		t.Errorf("super-slice on 1.35.4: %v", err)
	}
	err = super.CheckGKEVersion("1.35.1-gke.1")
	if err == nil || !strings.Contains(err.Error(), "a super-slice needs GKE 1.35.2-gke.1842000 or later, but the cluster runs 1.35.1-gke.1") {
		t.Errorf("super-slice on 1.35.1: %v", err)
	}
	if err := sub.CheckGKEVersion(""); err != nil {
		t.Errorf("an unknown version is left to GKE: %v", err)
	}
}
