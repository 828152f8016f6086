package topology

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

// Sub-slices are slices smaller than one sub-block, formed inside one 4x4x4
// partition. Their shapes are fixed: exactly these strings, no
// permutations, and each is formed from one partition ID of its own shape.
const (
	SubSlice2x2x1 = "2x2x1"
	SubSlice2x2x2 = "2x2x2"
	SubSlice2x2x4 = "2x2x4"
	SubSlice2x4x4 = "2x4x4"
)

// SubSliceShapes are the sub-slice topologies, smallest first.
var SubSliceShapes = []string{SubSlice2x2x1, SubSlice2x2x2, SubSlice2x2x4, SubSlice2x4x4}

// PartitionShapes are the shapes GKE publishes partition labels for on
// every dynamic-slicing node, smallest first: the four sub-slice shapes and
// the 4x4x4 partition (one sub-block) that holds them.
var PartitionShapes = []string{SubSlice2x2x1, SubSlice2x2x2, SubSlice2x2x4, SubSlice2x4x4, PartitionTopology}

// IsPartitionShape says whether s is one of PartitionShapes.
func IsPartitionShape(s string) bool { return slices.Contains(PartitionShapes, s) }

// IsSubSliceShape says whether s is exactly one of SubSliceShapes.
func IsSubSliceShape(s string) bool { return slices.Contains(SubSliceShapes, s) }

// HostsOfShape is the number of hosts (tpu7x-standard-4t nodes, 4 chips
// each) in one partition of the shape: 1, 2, 4, 8 or 16; 0 for a shape
// that is not a partition shape.
func HostsOfShape(shape string) int {
	if !IsPartitionShape(shape) {
		return 0
	}
	t, err := Parse(shape)
	if err != nil {
		return 0
	}
	return t.Hosts()
}

// PartitionsPerSubBlock is how many partitions of the shape one 4x4x4
// partition holds: 16, 8, 4, 2 or 1.
func PartitionsPerSubBlock(shape string) int {
	if h := HostsOfShape(shape); h > 0 {
		return HostsPerPartition / h
	}
	return 0
}

// SubPartitionIndex is the index, within its sub-block, of the partition of
// the shape that holds host (0..15). Partitions nest: the hosts of a
// sub-block are numbered so that every partition of a shape is a run of
// consecutive hosts, aligned to its size. A 4x4x4 is two 2x4x4 (hosts 0-7,
// 8-15), four 2x2x4, eight 2x2x2 and sixteen 2x2x1, and each partition lies
// inside exactly one partition of every larger shape.
func SubPartitionIndex(host int, shape string) int {
	h := HostsOfShape(shape)
	if h == 0 || host < 0 || host >= HostsPerPartition {
		return -1
	}
	return host / h
}

// PartitionIDLabel is the node label that carries the ID of the node's
// partition of the shape, for example
// cloud.google.com/gke-tpu-partition-2x2x2-id.
func PartitionIDLabel(shape string) string { return wellknown.PartitionLabelPrefix + shape + "-id" }

// PartitionStateLabel is the node label that carries the state of the
// node's partition of the shape. DEGRADED exists only for 4x4x4.
func PartitionStateLabel(shape string) string {
	return wellknown.PartitionLabelPrefix + shape + "-state"
}

// SubSlice says whether t is a sub-slice (one of SubSliceShapes).
func (t Topology) SubSlice() bool { return IsSubSliceShape(t.String()) }

// PartitionShape is the shape of the partitions a slice of topology t
// lists: 4x4x4 for a super-slice, the topology itself for a sub-slice.
func (t Topology) PartitionShape() string {
	if t.SubSlice() {
		return t.String()
	}
	return PartitionTopology
}

// Family names the kind of slice, for messages: "sub-slice" or "super-slice".
func (t Topology) Family() string {
	if t.SubSlice() {
		return "sub-slice"
	}
	return "super-slice"
}

// subSliceFor returns the sub-slice shape made of the same dimensions as
// t in another order ("4x2x2" → "2x2x4"), or "".
func subSliceFor(t Topology) string {
	dims := []int{t.A, t.B, t.C}
	slices.Sort(dims)
	for _, s := range SubSliceShapes {
		st, _ := Parse(s)
		sd := []int{st.A, st.B, st.C}
		slices.Sort(sd)
		if slices.Equal(dims, sd) {
			return s
		}
	}
	return ""
}

// subSliceList is the allowed sub-slice shapes for messages.
func subSliceList() string {
	q := make([]string, len(SubSliceShapes))
	for i, s := range SubSliceShapes {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// GKE versions that dynamic slicing needs.
const (
	// MinVersionSuperSlice is the first GKE version that forms slices of
	// 4x4x4 and up.
	MinVersionSuperSlice = "1.35.2-gke.1842000"
	// MinVersionSubSlice is the first GKE version that forms sub-slices.
	MinVersionSubSlice = "1.36.0-gke.3712000"
)

// MinGKEVersion is the first GKE version that forms a slice of topology t.
func (t Topology) MinGKEVersion() string {
	if t.SubSlice() {
		return MinVersionSubSlice
	}
	return MinVersionSuperSlice
}

// CheckGKEVersion reports a cluster version too old to form a slice of
// topology t, naming both versions. A version that cannot be read is not
// an error here (nil): GKE is the judge then.
func (t Topology) CheckGKEVersion(clusterVersion string) error {
	minVersion := t.MinGKEVersion()
	cmp, err := CompareGKEVersions(clusterVersion, minVersion)
	if err != nil || cmp >= 0 {
		return nil //nolint:nilerr // an unreadable version is left to GKE
	}
	return &Error{Value: t.String(), Rule: RuleVersion, Detail: fmt.Sprintf(
		"a %s needs GKE %s or later, but the cluster runs %s; upgrade the cluster's control plane and node pools first",
		t.Family(), minVersion, clusterVersion)}
}

// CompareGKEVersions compares two GKE versions of the form
// MAJOR.MINOR.PATCH-gke.N (the suffix optional, as in "1.36.0"): -1, 0 or
// +1. A missing part counts as 0.
func CompareGKEVersions(a, b string) (int, error) {
	pa, err := parseGKEVersion(a)
	if err != nil {
		return 0, err
	}
	pb, err := parseGKEVersion(b)
	if err != nil {
		return 0, err
	}
	for i := range pa {
		if pa[i] != pb[i] {
			if pa[i] < pb[i] {
				return -1, nil
			}
			return 1, nil
		}
	}
	return 0, nil
}

func parseGKEVersion(v string) ([4]int, error) {
	var out [4]int
	bad := fmt.Errorf("%q is not a GKE version (MAJOR.MINOR.PATCH-gke.N)", v)
	core, suffix, hasSuffix := strings.Cut(strings.TrimPrefix(v, "v"), "-")
	parts := strings.Split(core, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return out, bad
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return out, bad
		}
		out[i] = n
	}
	if hasSuffix {
		n, err := strconv.Atoi(strings.TrimPrefix(suffix, "gke."))
		if err != nil || !strings.HasPrefix(suffix, "gke.") || n < 0 {
			return out, bad
		}
		out[3] = n
	}
	return out, nil
}
